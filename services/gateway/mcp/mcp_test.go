package mcp

import (
	"context"
	"io"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"chartd.dev/libs/route"
)

func TestToolRequest(t *testing.T) {
	render := Tool{Op: "render_chart", Method: "GET", Path: route.APIBase + "/charts/{id}/render.{format}", PathParams: []string{"id", "format"}, QueryParams: []string{"scale", "transparent"}}
	ops := Tool{Op: "apply_ops", Method: "POST", Path: route.APIBase + "/charts/{id}/ops", PathParams: []string{"id"}, Body: true}
	tests := []struct {
		name     string
		tool     Tool
		args     map[string]any
		wantURL  string
		wantBody string
		wantErr  bool
	}{
		{"path and query", render, map[string]any{"id": "a/b", "format": "png", "scale": 2}, "/api/v1/charts/a%2Fb/render.png?scale=2", "", false},
		{"body takes the rest", ops, map[string]any{"id": "c1", "ops": []any{}}, "/api/v1/charts/c1/ops", `{"ops":[]}`, false},
		{"missing path parameter", ops, map[string]any{"ops": []any{}}, "", "", true},
		{"unknown argument without a body", render, map[string]any{"id": "x", "format": "svg", "colour": "red"}, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.tool.request(context.Background(), tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got := r.URL.RequestURI(); got != tt.wantURL {
				t.Errorf("url %s, want %s", got, tt.wantURL)
			}
			body, _ := io.ReadAll(r.Body)
			if string(body) != tt.wantBody {
				t.Errorf("body %s, want %s", body, tt.wantBody)
			}
		})
	}
}

func TestResult(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		ct      string
		isError bool
		image   bool
	}{
		{"json answer", 200, "application/json", false, false},
		{"png answer", 200, "image/png", false, true},
		{"refusal", 401, "application/json", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{header: map[string][]string{"Content-Type": {tt.ct}}}
			rec.WriteHeader(tt.status)
			rec.Write([]byte(`{"error":{"code":"unauthorized","message":"m"}}`))
			res := result(rec)
			if res.IsError != tt.isError {
				t.Fatalf("IsError %v", res.IsError)
			}
			if _, isImage := res.Content[0].(*sdk.ImageContent); isImage != tt.image {
				t.Fatalf("content %T", res.Content[0])
			}
		})
	}
}
