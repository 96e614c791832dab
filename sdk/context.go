package sdk

import (
	"context"
	"errors"
)

func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }

func isDeadline(err error) bool { return errors.Is(err, context.DeadlineExceeded) }
