package fault

import (
	"context"
	"fmt"
)

// ImageAndText adds an image block after the result's content (a chart of four bars, an 8×8
// PNG, base64 in data with mimeType image/png) and keeps the rest as the server sent it: a
// result of text and an image, as a tool that draws a chart beside its numbers sends. Image
// blocks are in every revision from 2024-11-05 to 2025-11-25 (server/tools); a client that
// hands on only text drops the image.
type ImageAndText struct{}

func init() { Register("image-and-text", &ImageAndText{}) }

// chartPNG is the image's bytes, fixed (not encoded at run time) so the same seed gives the same
// bytes whatever Go's PNG encoder does.
const chartPNG = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///8fb7Rs0TfOAAAAGklEQVR4nGJgYGBiYGJQYtBiWAWCgAAAAP//CJICT4s/ZtYAAAAASUVORK5CYII="

func (*ImageAndText) Apply(_ context.Context, c *Call) (*Effect, error) {
	return appendBlock(c, map[string]any{"type": "image", "data": chartPNG, "mimeType": "image/png"}), nil
}

// appendBlock adds block at the end of the result's content list (a result without one, or
// with a content that is not a list, gets a list of the block alone, which the note says).
func appendBlock(c *Call, block map[string]any) *Effect {
	r := clone(c.Result)
	content, ok := r["content"].([]any)
	eff := &Effect{}
	if !ok {
		eff.Note = "the result had no content list: the block is its only content"
	}
	r["content"] = append(content, block)
	eff.Result = r
	eff.Introduced = []Introduced{{Path: fmt.Sprintf("content[%d]", len(content)), Value: block}}
	return eff
}
