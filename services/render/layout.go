package render

import (
	"net/http"

	"github.com/gorilla/mux"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/httpx"
)

// layout draws a saved chart at its own size, as render_chart would (the
// same drawing, watermark included, without the PNG), and answers what the
// drawing had to cut or shrink: its notices. The chart service asks for
// them to lint what only a drawing can measure (text the chart is too
// small for). Like a thumbnail, it counts toward no allowance.
func (s *Service) layout(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	l, err := s.charts.Load(r.Context(), p, mux.Vars(r)["id"], aggregate.WithTable)
	if err != nil {
		return err
	}
	pic, err := s.makePicture(r.Context(), pictureJob{p: p, spec: l.Spec, table: l.Table, o: imageOptions{format: "svg", scale: 1, name: "layout", fonts: fontsSystem}})
	if err != nil {
		return err
	}
	notices := pic.notices
	if notices == nil {
		notices = []dataset.Notice{}
	}
	httpx.WriteJSON(w, http.StatusOK, clients.Layout{UpdatedAt: l.Stored.UpdatedAt, Notices: notices})
	return nil
}
