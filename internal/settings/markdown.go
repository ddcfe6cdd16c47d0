package settings

import (
	"fmt"
	"strings"
)

// Markdown is the README's table of every variable, rendered from the
// table (TestREADMETable keeps the README's copy current).
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Variable | Kind | Default | Accepts | Read by | Meaning |\n|---|---|---|---|---|---|\n")
	for _, v := range table {
		name := "`" + v.Name + "`"
		if v.NVSHMEM != "" {
			name += " (or NVSHMEM's `" + v.NVSHMEM + "`)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", name, v.Kind, code(v.Default), v.accepts(), v.Reader, v.Help)
	}
	return b.String()
}

// accepts is the Accepts column: a Choice's values, else the range.
func (v Var) accepts() string {
	if v.Kind == Choice {
		c := make([]string, len(v.Choices))
		for i, s := range v.Choices {
			c[i] = "`" + s + "`"
		}
		return strings.Join(c, ", ")
	}
	return v.Range
}

// code sets a one-word default in code type; words of prose stay prose.
func code(s string) string {
	if s == "" || strings.ContainsAny(s, " `(") || s == "auto" || s == "policy" {
		return s
	}
	return "`" + s + "`"
}
