package proxy

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
)

// servedTask is a task a fault answered a call with: the proxy keeps the server's real result
// and serves the tasks requests itself, never forwarding them.
type servedTask struct {
	*fault.Task
	result json.RawMessage
	status string
	gets   int // the tasks/get answered so far
}

// relatedTask is the _meta key that ties a tasks/result answer to its task (2025-11-25).
const relatedTask = "io.modelcontextprotocol/related-task"

// serveTask keeps the server's result of a call a fault answered with a task handle.
func (p *Proxy) serveTask(t *fault.Task, result json.RawMessage, rec *transcript.Record) {
	p.mu.Lock()
	if p.tasks == nil {
		p.tasks = map[string]*servedTask{}
	}
	p.tasks[t.ID] = &servedTask{Task: t, result: result, status: "working"}
	p.mu.Unlock()
	rec.Detail = map[string]any{"task": t.ID}
}

// taskRequest answers a tasks request itself when the fault is task-handle, as the tasks
// specification has a server do: tasks/get says working until the task's Polls-th poll and
// completed from then on, tasks/result gives the server's result. It returns nil for any other
// request, which goes on to the server.
func (p *Proxy) taskRequest(env jsonrpc.Message, rec *transcript.Record) (own []byte, ownRec *transcript.Record) {
	if _, ok := p.cfg.Fault.(*fault.TaskHandle); !ok || !strings.HasPrefix(env.Method, "tasks/") {
		return nil, nil
	}
	var params struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(env.Params, &params)
	detail := map[string]any{"task": params.TaskID, "method": env.Method}
	p.mu.Lock()
	t := p.tasks[params.TaskID]
	var result json.RawMessage // the answer's result, or nil for errorOf
	var errorOf map[string]any
	var said string
	switch {
	case env.Method == "tasks/list":
		ids := make([]string, 0, len(p.tasks))
		for id := range p.tasks {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		list := make([]any, 0, len(ids))
		for _, id := range ids {
			list = append(list, p.tasks[id].State(p.tasks[id].status, nil))
		}
		result, _ = marshal(map[string]any{"tasks": list})
		said = fmt.Sprintf("%d task(s)", len(list))
	case t == nil:
		errorOf = map[string]any{"code": -32602, "message": fmt.Sprintf("Invalid params: no task %q", params.TaskID)}
		said = "no such task"
	case env.Method == "tasks/get":
		t.gets++
		if t.status == "working" && t.gets >= t.Polls {
			t.status = "completed"
		}
		result, _ = marshal(t.State(t.status, t.result))
		detail["poll"] = t.gets
		said = fmt.Sprintf("poll %d: %s", t.gets, t.status)
		if t.status == "completed" && t.Modern {
			detail["result"] = true
			said += ", with the result"
		}
	case env.Method == "tasks/result" && t.status == "cancelled":
		errorOf = map[string]any{"code": -32602, "message": "Invalid params: task " + t.ID + " was cancelled"}
		said = "cancelled earlier: no result"
	case env.Method == "tasks/result":
		said = "the result"
		if t.status != "completed" {
			// A server blocks tasks/result until the task ends; the proxy's task ends when asked.
			said += fmt.Sprintf(", asked before the task completed (after %d of %d polls): it completes now", t.gets, t.Polls)
			t.status = "completed"
		}
		result = withRelatedTask(t.result, t.ID)
		detail["result"] = true
	case env.Method == "tasks/cancel" && t.status != "working":
		errorOf = map[string]any{"code": -32602, "message": "Invalid params: task " + t.ID + " is already " + t.status}
		said = "refused: already " + t.status
	case env.Method == "tasks/cancel":
		t.status = "cancelled"
		result, _ = marshal(t.State(t.status, nil))
		said = "cancelled"
	case env.Method == "tasks/update":
		result = json.RawMessage(`{}`)
		if t.Modern {
			result = json.RawMessage(`{"resultType":"complete"}`)
		}
		said = "acknowledged"
	default:
		errorOf = methodNotFound
		said = "no such method"
	}
	if t != nil {
		detail["status"] = t.status
	}
	p.mu.Unlock()
	if errorOf != nil {
		e, _ := marshal(errorOf)
		result = nil
		own = []byte(`{"jsonrpc":"2.0","id":` + string(env.ID) + `,"error":` + strings.TrimSuffix(string(e), "\n") + "}\n")
	} else {
		own = []byte(`{"jsonrpc":"2.0","id":` + string(env.ID) + `,"result":` + strings.TrimSuffix(string(result), "\n") + "}\n")
	}
	rec.Note = fmt.Sprintf("answered by the proxy, not forwarded: %s of task %q (%s)", env.Method, params.TaskID, p.cfg.FaultName)
	ownRec = &transcript.Record{Dir: transcript.ServerToClient, Wire: own, Detail: detail,
		Note: fmt.Sprintf("made up by the proxy: %s of task %q: %s", env.Method, params.TaskID, said)}
	return own, ownRec
}

// withRelatedTask gives the server's result the _meta that ties it to its task, every other
// byte kept: the tasks specification has tasks/result carry it, as the result names no task.
func withRelatedTask(result json.RawMessage, id string) json.RawMessage {
	tie, _ := json.Marshal(map[string]any{"taskId": id})
	member := []byte(`"` + relatedTask + `":` + string(tie))
	if meta, ok := objectMember(result, "_meta"); ok {
		if out, ok := jsonrpc.WithMember(result, insertMember(meta, member), "_meta"); ok {
			return out
		}
		return result
	}
	return insertMember(result, append([]byte(`"_meta":{`), append(member, '}')...))
}

// objectMember is the raw value of b's member key, when it is an object.
func objectMember(b []byte, key string) ([]byte, bool) {
	var out []byte
	jsonrpc.Members(b, func(k, v []byte) bool {
		if s, ok := jsonrpc.Unquote(k); ok && s == key && len(v) > 0 && v[0] == '{' {
			out = v
		}
		return true
	})
	return out, out != nil
}

// insertMember puts member first in the JSON object b, every other byte kept.
func insertMember(b, member []byte) []byte {
	i := strings.IndexByte(string(b), '{')
	if i < 0 {
		return b
	}
	rest := strings.TrimLeft(string(b[i+1:]), " \t\r\n")
	sep := ","
	if strings.HasPrefix(rest, "}") {
		sep = ""
	}
	out := append([]byte(nil), b[:i+1]...)
	out = append(append(out, member...), sep...)
	return append(out, b[i+1:]...)
}
