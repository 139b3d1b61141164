package render

import (
	"context"
	"errors"
	"fmt"
	"time"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/blob"
	"chartd.dev/libs/raster"
)

// MaxPixels is the longest side of a PNG, after scale.
const MaxPixels = 4000

// Rasterizer turns an SVG into a PNG: libs/raster's Chromium pool. It
// also reports its load and memory, which the fleet operator scales on.
type Rasterizer interface {
	Render(ctx context.Context, j raster.Job) ([]byte, error)
	Stats() raster.Stats
	RSS() int64
	Ready() error
}

var _ Rasterizer = (*raster.Pool)(nil)

// busyRetry is the Retry-After of a busy render fleet, and of one that
// lost its browsers under a render: about one render's wait, or a
// browser's restart, so a client comes back when tabs have turned over.
const busyRetry = 2 * time.Second

// rasterize turns pic's SVG into a PNG, from the image cache when the same
// picture was drawn before. The cache key is the picture hash, which
// covers everything that decides the pixels.
func (s *Service) rasterize(ctx context.Context, pic picture, o imageOptions) (picture, error) {
	key := "png/" + pictureHash(pic, o)
	pic.contentType = "image/png"
	if s.deps.Images != nil {
		b, err := s.deps.Images.Get(ctx, key)
		switch {
		case err == nil:
			s.metrics.cacheHit(ctx)
			pic.body = b
			return pic, nil
		case !errors.Is(err, blob.ErrNotFound):
			// A cache that fails is a miss, not a failed render.
			s.deps.Log.Warn("image cache read failed", "key", key, "err", err)
		}
	}
	s.metrics.cacheMiss(ctx)
	start := time.Now()
	png, err := s.deps.Raster.Render(ctx, raster.Job{SVG: pic.svg, Width: pic.cssWidth, Height: pic.cssHeight, Scale: o.scale})
	s.metrics.rasterized(ctx, time.Since(start), err)
	var de *raster.DrawError
	var th *raster.TooHeavyError
	switch {
	case errors.As(err, &th):
		return picture{}, tooHeavy(th, pic, o)
	case errors.Is(err, raster.ErrBusy):
		return picture{}, &apierr.Error{Code: apierr.RateLimited, RetryAfter: busyRetry,
			Message: "the render fleet is busy drawing other pictures; try again in a few seconds (SVG needs no rasterizing and is always available)"}
	case errors.As(err, &de):
		return picture{}, apierr.Wrap(apierr.InvalidRequest, err, "the chart's picture could not be turned into a PNG; the SVG format draws it as is")
	case errors.Is(err, raster.ErrUnavailable):
		return picture{}, apierr.Transient(err, busyRetry,
			"the render fleet lost a browser while drawing this picture, and fresh ones failed too; this is not a fault of the request, retry in a few seconds (SVG needs no rasterizing and is always available)")
	case err != nil:
		return picture{}, fmt.Errorf("rasterize %d×%d at scale %d: %w", pic.cssWidth, pic.cssHeight, o.scale, err)
	}
	pic.body = png
	s.keep(key, png)
	return pic, nil
}

// keep writes a drawn PNG to the image cache off the request's path (a
// durable write costs more than the answer needs); when too many writes
// are pending the picture is not cached, which costs a redraw at worst.
func (s *Service) keep(key string, png []byte) {
	if s.deps.Images == nil {
		return
	}
	select {
	case s.puts <- struct{}{}:
	default:
		s.deps.Log.Debug("image cache writes backed up; not caching", "key", key)
		return
	}
	s.writers.Add(1)
	go func() {
		defer func() { <-s.puts; s.writers.Done() }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.deps.Images.Put(ctx, key, png, "image/png"); err != nil {
			s.deps.Log.Warn("image cache write failed", "key", key, "err", err)
		}
	}()
}

// Flush waits for pending image cache writes: a stopping process keeps
// what it drew.
func (s *Service) Flush() { s.writers.Wait() }

// tooHeavy is the refusal of a picture too heavy for a PNG.
func tooHeavy(th *raster.TooHeavyError, pic picture, o imageOptions) error {
	return apierr.Wrap(apierr.TooLarge, th, "the picture is too heavy to turn into a PNG (%d shapes, %d KiB of SVG at %d×%d pixels); ask for it as SVG, or draw fewer cells (rows × series)",
		th.Cost.Elements, th.Cost.SVGBytes>>10, pic.cssWidth*o.scale, pic.cssHeight*o.scale)
}

// checkCost refuses a PNG too heavy to rasterize before it is counted or
// queued: its cost is a property of the picture, known from the SVG.
func (s *Service) checkCost(pic picture, o imageOptions) error {
	err := raster.CheckCost(raster.Job{SVG: pic.svg, Width: pic.cssWidth, Height: pic.cssHeight, Scale: o.scale}, raster.Budget(s.cfg.Raster.Deadline))
	var th *raster.TooHeavyError
	if errors.As(err, &th) {
		return tooHeavy(th, pic, o)
	}
	return err
}
