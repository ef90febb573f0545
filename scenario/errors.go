package scenario

import (
	"errors"
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/token"
)

// Error is one problem in a manifest, with the place it was found. Load
// returns one *Error, or several joined with errors.Join; a caller finds them
// with errors.As or Errors and maps them to exit code 2.
type Error struct {
	File  string
	Line  int
	Col   int
	Field string // path of the field, e.g. faults[2].probability; empty for syntax errors
	Msg   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Message())
}

// Message is the problem without its place: the field, if any, and what is wrong with it, as
// an annotation on the line shows it.
func (e *Error) Message() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Errors returns every *Error in err, which may be several joined, so that
// reports can annotate each line.
func Errors(err error) []*Error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*Error
		for _, err := range j.Unwrap() {
			out = append(out, Errors(err)...)
		}
		return out
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return nil
}

// posError is a problem found while decoding, tied to the token it was
// found at; Load turns it into an *Error once it knows the field's path.
// With want set it reads "expected <want>, got <what the token holds>".
type posError struct {
	tok  *token.Token
	want string
	msg  string
}

func (e *posError) Error() string {
	if e.want != "" {
		return "expected " + e.want
	}
	return e.msg
}

// wantError rewords goccy's "sequence was used where mapping is expected"
// as what the field really takes.
func wantError(err error, want string) error {
	var e *yaml.UnexpectedNodeTypeError
	if errors.As(err, &e) {
		return &posError{tok: e.Token, want: want}
	}
	return err
}
