// Package spell finds the known name an unknown one was probably meant to
// be, for the "did you mean …?" of an error message. It is meant for the
// error path only: it costs a small edit-distance table per candidate of
// about the same length.
package spell

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the name of known that name most likely misspells, or ""
// when none is close. Names are compared case-insensitively: one that
// differs from name only in case wins outright; otherwise the closest by
// edit distance (a letter inserted, deleted, changed, or two adjacent
// letters swapped), when that distance is at most 1 for names of up to 4
// letters and at most 2 for longer ones. Of equally close names, the first
// in known's order wins.
func Closest(name string, known []string) string {
	lower := strings.ToLower(name)
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	limit := 2
	if utf8.RuneCountInString(name) <= 4 {
		limit = 1
	}
	best, bestDist := "", limit+1
	a := []rune(lower)
	for _, k := range known {
		b := []rune(strings.ToLower(k))
		if abs(len(a)-len(b)) >= bestDist {
			continue // the distance is at least the difference in length
		}
		if d := distance(a, b); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent runes.
func distance(a, b []rune) int {
	// Three rows of the table: two back, one back, current.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
