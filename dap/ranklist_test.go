package dap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRankListTable: the launch cases of internal/ranklist's
// ranklists.json, which the VS Code extension's config.validate is held
// to as well, are taken and refused by parseRanks as the table says.
func TestRankListTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "internal", "ranklist", "testdata", "ranklists.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab struct {
		Launch []struct {
			List  json.RawMessage
			NP    int
			Ranks []int
		}
	}
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Launch) < 20 {
		t.Fatalf("%d launch cases: ranklists.json is not read right", len(tab.Launch))
	}
	for _, c := range tab.Launch {
		got, err := parseRanks(c.List, c.NP)
		switch {
		case c.Ranks == nil && err == nil:
			t.Errorf("parseRanks(%s, %d) = %v, want an error", c.List, c.NP, got)
		case c.Ranks != nil && (err != nil || !slices.Equal(got, c.Ranks)):
			t.Errorf("parseRanks(%s, %d) = %v, %v; want %v", c.List, c.NP, got, err, c.Ranks)
		}
	}
}
