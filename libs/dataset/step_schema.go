package dataset

// StepSchema is one step type's JSON Schema, for documents that describe
// the API (the OpenAPI document types each step with it). The decoder
// (DecodeStep) stays the one that checks requests, with its own messages;
// a test holds the two to the same fields.
type StepSchema struct {
	Type   string
	Schema map[string]any
}

// StepSchemas answers every step type's JSON Schema, in the order of the
// steps page.
func StepSchemas() []StepSchema {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	enum := func(desc string, vals ...string) map[string]any {
		return map[string]any{"type": "string", "enum": vals, "description": desc}
	}
	count := func(desc string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 1, "maximum": maxStepN, "description": desc}
	}
	cols := func(desc string, min int) map[string]any {
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": min, "description": desc}
	}
	scalar := []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}, map[string]any{"type": "boolean"}, map[string]any{"type": "null"}}
	step := func(typ, desc string, required []string, props map[string]any) StepSchema {
		props["type"] = map[string]any{"type": "string", "const": typ, "description": "the step type"}
		return StepSchema{Type: typ, Schema: map[string]any{
			"type": "object", "description": desc, "additionalProperties": false,
			"required": append([]string{"type"}, required...), "properties": props,
		}}
	}
	return []StepSchema{
		step("sort", "Orders the rows by one column.", []string{"column"}, map[string]any{
			"column":    str("a column id such as c1"),
			"direction": enum("asc (the default) or desc", "asc", "desc"),
		}),
		step("topN", "Keeps the n rows with the largest values of a column (the chart's value column by default).", []string{"n"}, map[string]any{
			"n":      count("how many rows to keep"),
			"column": str("a column id such as c2; the chart's first value column when left out"),
		}),
		step("filter", "Keeps the rows whose column compares true with value.", []string{"column", "operator", "value"}, map[string]any{
			"column":   str("a column id such as c1"),
			"operator": enum("the comparison; in takes a list of values", filterOperators()...),
			"value": map[string]any{"description": "the value to compare with: a string, number, boolean or null (null matches blank cells with eq and ne); a non-empty list of those for in",
				"oneOf": append(append([]any{}, scalar...), map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"oneOf": scalar}})},
		}),
		step("aggregate", "Groups the rows and computes one value per group and measure.", []string{"measures"}, map[string]any{
			"groupBy": cols("column ids to group by; none makes one group of every row", 0),
			"measures": map[string]any{"type": "array", "minItems": 1, "description": "what to compute per group", "items": map[string]any{
				"type": "object", "additionalProperties": false, "required": []string{"fn"},
				"properties": map[string]any{
					"column": str("the column to compute on; count needs none"),
					"fn":     enum("the function", aggregateFns()...),
				},
			}},
		}),
		step("limit", "Keeps the first n rows.", []string{"n"}, map[string]any{
			"n": count("how many rows to keep"),
		}),
		step("unpivot", "Turns columns into rows: one row per column and row, with the column's name and value.", []string{"columns"}, map[string]any{
			"columns":     cols("the column ids to turn into rows", 1),
			"nameColumn":  str("a name for the new column of names"),
			"valueColumn": str("a name for the new column of values"),
		}),
		step("dateBucket", "Rounds a date column down to a unit, so rows group by day, week, month, quarter or year.", []string{"column", "unit"}, map[string]any{
			"column": str("a date column id such as c1"),
			"unit":   enum("the unit to round to", bucketUnits()...),
		}),
		step("kind", "Reads a column again as another kind (text, number or date), from its cells as they show; a cell that does not read as that kind is named in the error.", []string{"column", "kind"}, map[string]any{
			"column": str("a column id such as c1"),
			"kind":   enum("the kind to read the column as", kindNames()...),
		}),
	}
}
