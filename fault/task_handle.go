package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// TaskHandle answers the call with a task handle the client never asked for (a CreateTaskResult
// in the shape of the session's revision: `resultType: task` and the task's members under
// 2026-07-28, a `task` object under 2025-11-25) instead of its result; the proxy then serves
// the task itself, `tasks/get` answering `working` until the polls-th poll and `completed`
// from then on, `tasks/result` (and, under 2026-07-28, the completed `tasks/get`) the server's
// real result, so a client that polls gets it and one that does not is seen not to. The seed
// makes the task's id and the time it says it was created.
type TaskHandle struct {
	// Polls is the tasks/get that first answers completed: 2 answers working once, then completed.
	Polls int `json:"polls"`
	// PollInterval is the pause between polls the handle suggests.
	PollInterval Duration `json:"poll_interval"`
}

func init() {
	Register("task-handle", &TaskHandle{Polls: 2, PollInterval: Duration(100 * time.Millisecond)})
}

// Task is a task a fault answered a call with, which the proxy then serves: it completes with
// the server's result at poll Polls.
type Task struct {
	ID           string
	CreatedAt    string
	PollInterval time.Duration
	Polls        int
	// Modern says the session speaks 2026-07-28, where tasks are an extension: every result
	// carries resultType, the TTL and interval are ttlMs and pollIntervalMs, and a completed
	// tasks/get carries the result inline.
	Modern bool
}

// taskEpoch is where the made-up creation times start; the seed adds up to a year to it.
var taskEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (f *TaskHandle) Apply(_ context.Context, c *Call) (*Effect, error) {
	_, hasType := c.Result["resultType"]
	t := &Task{
		ID:           fmt.Sprintf("task-%016x", c.Rand.Uint64()),
		CreatedAt:    taskEpoch.Add(time.Duration(c.Rand.IntN(365*24*3600)) * time.Second).Format(time.RFC3339),
		PollInterval: time.Duration(f.PollInterval),
		Polls:        f.Polls,
		// A session whose revision is unknown (no handshake seen) speaks as its server answers.
		Modern: c.Protocol >= "2026-07-28" || c.Protocol == "" && hasType,
	}
	state := t.State("working", nil)
	eff := &Effect{Task: t, Note: fmt.Sprintf("the result is held back: the proxy serves task %s, completed at tasks/get %d", t.ID, t.Polls)}
	if !t.Modern {
		eff.Result = map[string]any{"task": state}
		eff.Introduced = []Introduced{{Path: "task", Value: state}}
		return eff, nil
	}
	eff.Result = map[string]any{"resultType": "task"}
	for _, k := range sortedKeys(state) {
		eff.Result[k] = state[k]
		in := Introduced{Path: k, Value: state[k]}
		if k == "resultType" {
			in.Value, in.Was = "task", c.Result[k]
			eff.Result[k] = "task"
		}
		eff.Introduced = append(eff.Introduced, in)
	}
	return eff, nil
}

// State is the task with the given status, as tasks/get, tasks/cancel and tasks/list show it
// in the session's revision; under 2026-07-28 a completed one carries result inline.
func (t *Task) State(status string, result json.RawMessage) map[string]any {
	s := map[string]any{"taskId": t.ID, "status": status, "createdAt": t.CreatedAt, "lastUpdatedAt": t.CreatedAt}
	ms := t.PollInterval.Milliseconds()
	if !t.Modern {
		s["ttl"], s["pollInterval"] = nil, ms
		return s
	}
	s["resultType"], s["ttlMs"], s["pollIntervalMs"] = "complete", nil, ms
	if status == "completed" && result != nil {
		s["result"] = result
	}
	return s
}

func (f *TaskHandle) check() *OptionError {
	if f.Polls < 1 {
		return &OptionError{Option: "polls", Err: fmt.Errorf("must be 1 or more (the tasks/get that answers completed), got %d", f.Polls)}
	}
	if f.PollInterval < 0 {
		return &OptionError{Option: "poll_interval", Err: fmt.Errorf("must not be negative, got %s", time.Duration(f.PollInterval))}
	}
	return nil
}
