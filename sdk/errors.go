package sdk

import (
	"errors"
	"fmt"
	"time"
)

// ErrorKind classifies a failure. The set is fixed by the harness design
// (DESIGN §6); retry policy and user messages key on it.
type ErrorKind string

// The error kinds of the harness.
const (
	KindAuth                ErrorKind = "auth"
	KindBilling             ErrorKind = "billing"
	KindInvalidRequest      ErrorKind = "invalid_request"
	KindRateLimited         ErrorKind = "rate_limited"
	KindProviderUnavailable ErrorKind = "provider_unavailable"
	KindTimeout             ErrorKind = "timeout"
	KindTruncated           ErrorKind = "truncated"
	KindStreamViolation     ErrorKind = "stream_violation"
	KindDenied              ErrorKind = "denied"
	KindPendingApproval     ErrorKind = "pending_approval"
	KindInvalidArgs         ErrorKind = "invalid_args"
	KindToolNotFound        ErrorKind = "tool_not_found"
	KindProcessExit         ErrorKind = "process_exit"
	KindPathEscape          ErrorKind = "path_escape"
	KindRepeatedCall        ErrorKind = "repeated_call"
	KindBudgetExceeded      ErrorKind = "budget_exceeded"
	KindCanceled            ErrorKind = "canceled"
	KindInternal            ErrorKind = "internal"
	// KindStaleHandle is returned by a provider for a PrepareCall handle
	// whose adapter generation has ended; the host prepares again.
	KindStaleHandle ErrorKind = "stale_handle"
)

// Error is a structured failure with a kind. Plugins return it from
// Execute and Stream; the host converts every other error to KindInternal.
type Error struct {
	Kind       ErrorKind
	Message    string
	RetryAfter time.Duration // the server's Retry-After hint, if any
}

// Error implements the error interface.
func (e *Error) Error() string { return string(e.Kind) + ": " + e.Message }

// Errorf returns an *Error of the given kind with a formatted message.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of err: the kind of an *Error in its chain,
// KindCanceled for context cancellation, else KindInternal.
func KindOf(err error) ErrorKind {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Kind
	case isCanceled(err):
		return KindCanceled
	default:
		return KindInternal
	}
}

// AsError returns err as an *Error, wrapping foreign errors as KindInternal
// (or KindCanceled / KindTimeout for context errors).
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if isDeadline(err) {
		return &Error{Kind: KindTimeout, Message: err.Error()}
	}
	return &Error{Kind: KindOf(err), Message: err.Error()}
}
