package cellimage

import (
	"context"
	"os"

	"github.com/toolscore/toolscore/internal/client"
)

// ImageFor is the cell image the runs of a client start from on docker, before a server's
// install step is layered on: d is the client's descriptor, image the manifest's image for it
// (a ready image, or the base of a recipe), version its pin. It is the built-in image; the
// recipe of a client the manifest defines (recipe true), on image when one is named; image with
// toolscore layered on, imageID reading its ID from the engine; or a contained client's image at
// version. Nothing is built: the sweep builds it, toolscore clients says whether it is built.
func ImageFor(ctx context.Context, d client.Descriptor, image, version string, bin []byte, imageID func(context.Context, string) (string, error)) (spec Spec, recipe bool, err error) {
	switch {
	case d.Manifest:
		spec, err = Recipe(d.Local.Recipe, image, bin)
		return spec, true, err
	case image != "":
		id, err := imageID(ctx, image)
		if err != nil {
			return Spec{}, false, err
		}
		return Ready(image, id, bin), false, nil
	case d.Contained():
		spec, err = Client(d.Image, bin, version)
		return spec, false, err
	}
	return Builtin(bin, os.Getenv("TOOLSCORE_BASE_IMAGE")), false, nil
}
