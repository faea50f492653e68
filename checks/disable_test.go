package checks

import "testing"

func TestValidateDisabled(t *testing.T) {
	for _, tc := range []struct{ list, err string }{
		{"", ""},
		{"-leak", ""},
		{"-leak,-overlap", ""},
		{" -leak , -deadlock", ""},
		{"-lost-message,-rma-race,-buffer-race", ""},
		{"leak", `"leak": want -CATEGORY, a category to turn off`},
		{"-leak,overlap", `"overlap": want -CATEGORY, a category to turn off`},
		{"-leak,", `"": want -CATEGORY, a category to turn off`},
		{"-leaks", `unknown category "leaks" (categories: argument, datatype-lifecycle, request-lifecycle, leak, type-mismatch, collective-mismatch, overlap, buffer-race, rma-race, epoch-lifecycle, deadlock, message-race, lost-message, process-lifecycle)`},
		{"+leak", `"+leak": +ID turns on a finding that is off by default (message-race-info)`},
		{"+message-race-info", ""},
		{"-leak, +message-race-info", ""},
		{"+message-race", `"+message-race": +ID turns on a finding that is off by default (message-race-info)`},
	} {
		err := ValidateDisabled(tc.list)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ValidateDisabled(%q): %v", tc.list, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("ValidateDisabled(%q): %v, want %s", tc.list, err, tc.err)
		}
	}
}
