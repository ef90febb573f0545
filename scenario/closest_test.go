package scenario

import "testing"

// TestClosest suggests a listed tool for a slip of the keyboard, and none for another name.
func TestClosest(t *testing.T) {
	listed := []string{"echo", "get-sum", "get-structured-content", "get_account_balance"}
	for name, want := range map[string]string{
		"get_sum": "get-sum", "Echo": "echo", "get_account_balanse": "get_account_balance", "translate": "", "ech": "echo",
	} {
		if got := Closest(name, listed); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}
