package shmem_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every relative link of the README, the porting guide and docs/ points
// at a file of the repository: the design once lived outside it.
func TestDocLinksStayInRepo(t *testing.T) {
	docs, err := filepath.Glob("../porting-guide/*.md")
	require.NoError(t, err)
	docs = append(docs, "../README.md", "../docs/ARCHITECTURE.md")
	link := regexp.MustCompile(`\]\(([^)#\s]+)`)
	code := regexp.MustCompile("(?s)```.*?```|`[^`]*`") // code, not links
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := code.ReplaceAllString(string(b), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			path := filepath.Join(filepath.Dir(doc), target)
			_, err := os.Stat(path)
			assert.NoError(t, err, "%s links %s", doc, target)
			rel, err := filepath.Rel("..", path)
			require.NoError(t, err)
			assert.False(t, strings.HasPrefix(rel, ".."), "%s links %s, outside the repository", doc, target)
		}
	}
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "](docs/ARCHITECTURE.md)")
}
