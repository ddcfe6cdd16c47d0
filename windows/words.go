package windows

import "strings"

// withArticle puts "a" or "an" before a word for an error message: "an
// exclusive lock", "an allocate window", "a shared lock".
func withArticle(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
