package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestKindOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, None},
		{"plain error", errors.New("boom"), Internal},
		{"not found", ErrNotFound, NotFound},
		{"wrapped conflict", fmt.Errorf("store: %w", ErrConflict), Conflict},
		{"invalid", Fields(map[string]string{"a": "b"}), Invalid},
	}
	for _, tt := range tests {
		if got := KindOf(tt.err); got != tt.want {
			t.Errorf("%s: KindOf = %d; want %d", tt.name, got, tt.want)
		}
	}
	if KindOf(nil) == Internal {
		t.Error("KindOf(nil) = Internal; a nil error is no error")
	}
}
