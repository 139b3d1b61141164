package render

import (
	"context"
	"errors"
	"fmt"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/quota"
)

// charge is the allowance a picture is taken from.
type charge int

const (
	// chargeNone: the site's drawings (thumbnails, sketches, previews, the
	// try-it box, layouts) count toward no allowance.
	chargeNone charge = iota
	// chargeRender: render_chart takes one of the day's renders per call.
	chargeRender
	// chargeImage: one of the month's distinct pictures, keyed by the
	// picture hash, so the same picture again costs nothing.
	chargeImage
)

// pictureJob is one picture asked of the pipeline.
type pictureJob struct {
	// p is whose allowance pays: the caller, or an image link's owner.
	p     auth.Principal
	spec  *chartspec.Spec
	table *dataset.Table
	o     imageOptions
	// charge is the allowance the picture is taken from.
	charge charge
	// viaLink says the picture is an image link's: its refusal tells the
	// caller nothing of the owner's allowance.
	viaLink bool
	// fresh, when set, is asked with the picture hash once the picture is
	// counted: true means the caller has it already (If-None-Match), so no
	// image is made and the answer is the picture with notModified.
	fresh func(hash string) bool
}

// drawFailure marks an error of the draw step: the chart itself cannot be
// drawn (image links answer not_found for it, whatever the cause).
type drawFailure struct{ err error }

func (e *drawFailure) Error() string { return e.err.Error() }
func (e *drawFailure) Unwrap() error { return e.err }

// makePicture is the one picture pipeline every drawing goes through:
// draw the SVG → hash it → (a PNG too heavy to rasterize is refused here,
// uncounted) → count it against the allowance → answer the
// SVG (with its fonts), or the PNG from the image cache or Chromium. The
// count comes before Chromium, so a refused picture costs no
// rasterization, and every path counts by the same key.
func (s *Service) makePicture(ctx context.Context, j pictureJob) (picture, error) {
	// only a counted picture answers a caller with its Chartd-Lint header;
	// the site's drawings (the layout among them, which chart's own lint
	// asks for) are not linted a second time
	pic, err := s.draw(ctx, j.p, j.spec, j.table, j.o, j.charge != chargeNone)
	if err != nil {
		return picture{}, &drawFailure{err: err}
	}
	pic.hash = pictureHash(pic, j.o)
	if j.o.format == "png" {
		if err := s.checkCost(pic, j.o); err != nil {
			return picture{}, err
		}
	}
	if err := s.count(ctx, j, pic.hash); err != nil {
		return picture{}, err
	}
	if j.fresh != nil && j.fresh(pic.hash) {
		pic.notModified = true
		return pic, nil
	}
	if j.o.format == "png" {
		return s.rasterize(ctx, pic, j.o)
	}
	return s.withFonts(ctx, pic, j.o)
}

// count takes the picture from j's allowance.
func (s *Service) count(ctx context.Context, j pictureJob, hash string) error {
	switch j.charge {
	case chargeRender:
		limit := plan.LimitsOf(j.p.Plan).DailyRenders
		_, ok, err := s.deps.Counter.AddWithin(ctx, rendersKey(j.p.AccountID), quota.Day, 1, limit)
		if err != nil {
			return fmt.Errorf("count render: %w", err)
		}
		if !ok {
			return apierr.New(apierr.RenderLimitReached, "this account has used its %d renders for today (the %s plan's allowance); it starts again in %s",
				limit, j.p.Plan, resetIn(quota.Day.Reset(s.deps.Now())))
		}
	case chargeImage:
		limit := plan.LimitsOf(j.p.Plan).MonthlyImages
		_, ok, err := s.deps.Counter.AddUniqueWithin(ctx, imagesKey(j.p.AccountID), quota.Month, hash, limit)
		if err != nil {
			return fmt.Errorf("count image render: %w", err)
		}
		if ok {
			return nil
		}
		if j.viaLink {
			return apierr.New(apierr.ImageLimitReached, "this picture is not available right now; try again later")
		}
		return apierr.New(apierr.ImageLimitReached, "this account has drawn its %d different pictures this month (the %s plan's allowance); pictures drawn before cost nothing, new ones wait until the month turns in %s",
			limit, j.p.Plan, resetIn(quota.Month.Reset(s.deps.Now())))
	}
	return nil
}

// isDrawFailure tells whether err came from the draw step.
func isDrawFailure(err error) bool {
	var df *drawFailure
	return errors.As(err, &df)
}

// draw renders spec on t (data before steps) for p as SVG: the first step
// of the picture pipeline (makePicture), which every drawing goes through.
// With lint, the picture also carries the ids of the chart's lint warnings.
func (s *Service) draw(ctx context.Context, p auth.Principal, spec *chartspec.Spec, t *dataset.Table, o imageOptions, lint bool) (picture, error) {
	var steps []dataset.Step
	for i, raw := range spec.Steps {
		st, err := dataset.DecodeStep(raw)
		if err != nil {
			return picture{}, apierr.New(apierr.InvalidRequest, "steps[%d]: %v", i, err)
		}
		steps = append(steps, st)
	}
	s.metrics.drawn(ctx)
	release, err := s.admit.acquire(ctx, drawCost(t))
	if err != nil {
		return picture{}, fmt.Errorf("admit the drawing: %w", err)
	}
	after, err := dataset.ApplyAll(t, steps, dataset.Defaults{ValueColumn: spec.ValueColumn()})
	if err != nil {
		release()
		return picture{}, apierr.New(apierr.InvalidRequest, "the chart's steps fail on its data: %v; fix them with updateTransform or removeTransform", err)
	}
	drawn, err := draw.Render(draw.Input{Spec: spec, Table: after, Width: o.width, Height: o.height,
		Transparent: o.transparent, Watermark: p.Plan != plan.Pro, Fonts: s.deps.Fonts,
		Theme: drawTheme(spec, o), Marks: o.marks, MinText: o.minText})
	if err != nil {
		release()
		return picture{}, apierr.New(apierr.InvalidRequest, "the chart cannot be drawn: %v", err)
	}
	// the Chartd-Lint ids, linted inside the admission: lint is linear in the data as drawing is
	var warns []string
	if lint {
		warns, err = chartspec.WarnIDs(ctx, spec, after, chartspec.LintEnv{Catalog: s.deps.Catalog, Transparent: o.transparent}, drawn.Notices)
	}
	release()
	if err != nil {
		return picture{}, err
	}
	svg := drawn.SVG
	// the size drawn: a chart with no height given may grow to name every row
	w, h := drawn.Width, drawn.Height
	if w*o.scale > MaxPixels || h*o.scale > MaxPixels {
		return picture{}, apierr.New(apierr.InvalidRequest, "the picture would be %d×%d pixels at scale %d; a PNG is at most %d pixels on a side, so lower scale, width or height",
			w*o.scale, h*o.scale, o.scale, MaxPixels)
	}
	return picture{body: svg, contentType: "image/svg+xml", width: w * o.scale, height: h * o.scale,
		svg: svg, cssWidth: w, cssHeight: h, notices: drawn.Notices, lint: warns, marks: drawn.Marks}, nil
}
