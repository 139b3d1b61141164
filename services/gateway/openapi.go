package gateway

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed openapi.json
var openapiSource []byte

// openapiTypes are the typed Op and Step schemas, generated from the op
// catalog and the step decoder (openapi_types_test.go, -update).
//
//go:embed openapi_types.json
var openapiTypes []byte

// OpenAPI answers the OpenAPI 3.1 document with baseURL as its server and
// the rate-limit headers on every response.
func OpenAPI(baseURL string) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(openapiSource, &doc); err != nil {
		return nil, fmt.Errorf("parse embedded openapi.json: %w", err)
	}
	doc["servers"] = []any{map[string]any{"url": baseURL}}
	// Public image links live at the site's root, not under the API base.
	site := strings.TrimSuffix(baseURL, BasePath)
	if paths, ok := doc["paths"].(map[string]any); ok {
		for _, item := range paths {
			it, _ := item.(map[string]any)
			servers, _ := it["servers"].([]any)
			for _, sv := range servers {
				if m, ok := sv.(map[string]any); ok && m["url"] == "SITE_URL" {
					m["url"] = site
				}
			}
		}
	}
	var types map[string]any
	if err := json.Unmarshal(openapiTypes, &types); err != nil {
		return nil, fmt.Errorf("parse embedded openapi_types.json: %w", err)
	}
	comps, _ := doc["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	if schemas == nil {
		return nil, fmt.Errorf("openapi.json has no components.schemas")
	}
	for name, s := range types {
		schemas[name] = s
	}
	// The rate-limit headers are on every answer, so they are added here
	// instead of being repeated in the source.
	rateLimitHeaderNames := []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}
	addHeaders := func(resp map[string]any) {
		if _, isRef := resp["$ref"]; isRef {
			return
		}
		hs, _ := resp["headers"].(map[string]any)
		if hs == nil {
			hs = map[string]any{}
			resp["headers"] = hs
		}
		for _, n := range rateLimitHeaderNames {
			hs[n] = map[string]any{"$ref": "#/components/headers/" + n}
		}
	}
	resps, _ := comps["responses"].(map[string]any)
	if resps == nil {
		return nil, fmt.Errorf("openapi.json has no components.responses")
	}
	paths, _ := doc["paths"].(map[string]any)
	for _, item := range paths {
		for _, op := range item.(map[string]any) {
			opm, ok := op.(map[string]any)
			if !ok {
				continue
			}
			opResps, _ := opm["responses"].(map[string]any)
			for _, resp := range opResps {
				addHeaders(resp.(map[string]any))
			}
		}
	}
	for _, resp := range resps {
		addHeaders(resp.(map[string]any))
	}
	return json.MarshalIndent(doc, "", "  ")
}
