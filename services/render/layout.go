package render

import (
	"context"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/dataset"
)

// layout draws a saved chart at its own size, as render_chart would (the
// same drawing, watermark included, without the PNG), and answers what the
// drawing had to cut or shrink: its notices. The chart service asks for
// them to lint what only a drawing can measure (text the chart is too
// small for). Like a thumbnail, it counts toward no allowance.
func (s *Service) layout(ctx context.Context, p auth.Principal, req ChartID) (clients.Layout, error) {
	l, err := s.charts.Load(ctx, p, req.ID, aggregate.WithTable)
	if err != nil {
		return clients.Layout{}, err
	}
	pic, err := s.makePicture(ctx, pictureJob{p: p, spec: l.Spec, table: l.Table, o: imageOptions{format: "svg", scale: 1, name: "layout", fonts: fontsSystem}})
	if err != nil {
		return clients.Layout{}, err
	}
	notices := pic.notices
	if notices == nil {
		notices = []dataset.Notice{}
	}
	return clients.Layout{UpdatedAt: l.Stored.UpdatedAt, Notices: notices}, nil
}
