package render

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"chartd.dev/libs/gallery"
)

// galleryOnce holds the gallery's JSON once it is drawn. It is drawn on
// the first ask and kept for the life of the process (the gateway asks
// once, at its first docs or home page); a failed drawing is not kept,
// so the next ask tries again.
type galleryOnce struct {
	mu   sync.Mutex
	body []byte
}

// gallery answers every example and style-op pair drawn with the font
// stack, and the one font block that carries their faces (GET
// /internal/v1/gallery, for the gateway's docs and home page). It counts
// toward no allowance: the pictures are the service's own.
func (s *Service) gallery(w http.ResponseWriter, r *http.Request) error {
	body, err := s.galleryJSON(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body)
	return err
}

func (s *Service) galleryJSON(ctx context.Context) ([]byte, error) {
	s.pictures.mu.Lock()
	defer s.pictures.mu.Unlock()
	if s.pictures.body != nil {
		return s.pictures.body, nil
	}
	g, err := gallery.Draw(ctx, s.deps.Catalog, s.deps.Ops, s.deps.Fonts, s.subsets)
	if err != nil {
		return nil, fmt.Errorf("draw the gallery: %w", err)
	}
	body, err := json.Marshal(g)
	if err != nil {
		return nil, fmt.Errorf("encode the gallery: %w", err)
	}
	s.pictures.body = body
	return body, nil
}
