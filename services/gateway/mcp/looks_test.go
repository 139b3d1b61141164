package mcp

import (
	"strings"
	"testing"
)

// TestApplyOpsTakesTheLooksOps (issue 34): the apply_ops tool's op union
// names setHighlight, setFacet and setTheme, and render_chart and
// create_image_url take a theme.
func TestApplyOpsTakesTheLooksOps(t *testing.T) {
	raw, tools := listTools(t)
	text := string(raw)
	for _, op := range []string{"setHighlight {", "setFacet {", "setTheme {"} {
		if !strings.Contains(text, op) {
			t.Errorf("tools/list does not describe %s…}", op)
		}
	}
	found := 0
	for _, tool := range tools {
		name, _ := tool["name"].(string)
		if name != "render_chart" && name != "create_image_url" {
			continue
		}
		found++
		schema, _ := tool["inputSchema"].(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		if _, ok := props["theme"]; !ok {
			t.Errorf("%s takes no theme", name)
		}
	}
	if found != 2 {
		t.Errorf("found %d of render_chart and create_image_url", found)
	}
}
