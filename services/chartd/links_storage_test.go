package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestDataLinkStorage makes data links of a wide chart (400 columns with
// 1 KB names, two of them drawn) and checks what the links store: the
// design keeps only the drawn columns, and all the links of one chart
// state share one design, so a link costs a bounded few hundred bytes
// whatever the chart's width (it was 463 KiB a link).
func TestDataLinkStorage(t *testing.T) {
	in := startAll(t)
	free := newClient(t, in.url, in.newAccount(t, "free"))
	var header []string
	var row []string
	header = append(header, "Country", "Sales")
	row = append(row, "Germany", "120")
	for i := range 398 {
		header = append(header, fmt.Sprintf("note %03d %s", i, strings.Repeat("n", 1000)))
		row = append(row, "text")
	}
	csv := strings.Join(header, ",") + "\n" + strings.Join(row, ",") + "\n" + strings.Replace(strings.Join(row, ","), "Germany,120", "France,95", 1) + "\n"
	ch, _ := createChart(t, free, map[string]any{"type": "bar", "data": csv, "ops": []any{setTitleOp("Wide")}})

	st := in.open(t)
	defer st.Close()
	ctx := context.Background()
	accts, err := st.ListAccounts(ctx)
	if err != nil || len(accts) != 1 {
		t.Fatalf("accounts: %d, %v", len(accts), err)
	}
	acct := accts[0].ID

	const links = 20
	var first string
	for i := range links {
		l := createLink(t, free, map[string]any{"id": ch.ID, "format": "svg", "data": fmt.Sprintf("Country,Sales\nPeru,%d\nChad,%d\n", 100+i, 50+i)})
		u, err := url.Parse(l.URL)
		if err != nil {
			t.Fatal(err)
		}
		design, err := st.GetLinkDesign(ctx, acct, u.Query().Get("sig"))
		if err != nil {
			t.Fatalf("link %d's design: %v", i, err)
		}
		if len(design) > 8<<10 {
			t.Fatalf("link %d keeps a design of %d bytes for a chart drawing 2 short columns: %.200s…", i, len(design), design)
		}
		if strings.Contains(string(design), "note 000") {
			t.Fatalf("link %d keeps columns the chart does not draw", i)
		}
		if i == 0 {
			first = l.URL
			t.Logf("a link's design: %d bytes", len(design))
		}
	}
	if n, err := st.CountLinkDesigns(ctx, acct); err != nil || n != 1 {
		t.Fatalf("%d links of one chart state keep %d designs (%v), want 1", links, n, err)
	}
	resp, err := http.Get(first)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	pic, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(pic), "Peru") || !strings.Contains(string(pic), "Wide") {
		t.Fatalf("the first data link draws %d: %.300s", resp.StatusCode, pic)
	}
}
