package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"chartd.dev/libs/store"
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

// TestDataLinkLimit fills a free account's data links to its plan's
// 1,000 (the rows stored directly, as its links would store them): the
// next data link is refused with image_limit_reached saying to rotate the
// signing key, while a live link and a data link made again still work;
// rotating the key on the account page stops the old links and frees
// their rows and designs, and data links can be made again.
func TestDataLinkLimit(t *testing.T) {
	in := startAll(t)
	alice := newBrowserClient(t, in.url)
	csrf := alice.signUp("linker@example.com")
	p := alice.post("/account/keys", url.Values{"csrf": {csrf}, "name": {"laptop"}})
	key := newKeyRE.FindString(p.body)
	if p.status != http.StatusOK || key == "" {
		t.Fatalf("create a key on the account page: %d, key %q:\n%.800s", p.status, key, p.body)
	}
	c := newClient(t, in.url, key)
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
	dataLink := func(i int) map[string]any {
		return map[string]any{"id": ch.ID, "format": "svg", "data": fmt.Sprintf("Country,Sales,Profit\nPeru,%d,1\n", i)}
	}
	first := createLink(t, c, dataLink(0)).URL

	st := in.open(t)
	defer st.Close()
	ctx := context.Background()
	accts, err := st.ListAccounts(ctx)
	if err != nil || len(accts) != 1 {
		t.Fatalf("accounts: %d, %v", len(accts), err)
	}
	acct := accts[0].ID
	design, err := st.GetLinkDesign(ctx, acct, paramOf(t, first, "sig"))
	if err != nil {
		t.Fatal(err)
	}
	const limit = 1000
	for i := 1; i < limit; i++ {
		l := store.DataLink{ID: fmt.Sprintf("seed-%d", i), ChartID: ch.ID, KID: paramOf(t, first, "kid"), Design: design}
		if err := st.PutLinkDesign(ctx, acct, l, store.LinkLimits{}); err != nil {
			t.Fatalf("seed link %d: %v", i, err)
		}
	}

	a := c.do("POST", "/api/v1/image-urls", dataLink(limit))
	if a.status != http.StatusTooManyRequests || a.errCode(t) != "image_limit_reached" {
		t.Fatalf("data link %d of a free account: %d %.400s, want 429 image_limit_reached", limit+1, a.status, a.body)
	}
	for _, want := range []string{"1000 links made with data", "rotate the signing key", "live chart"} {
		if !strings.Contains(string(a.body), want) {
			t.Errorf("the refusal does not say %q: %s", want, a.body)
		}
	}
	if n, err := st.CountDataLinks(ctx, acct); err != nil || n != limit {
		t.Fatalf("data links after the refusal: %d, %v, want %d", n, err, limit)
	}
	if again := createLink(t, c, dataLink(0)).URL; again != first {
		t.Fatalf("the first data link made again at the limit: %s, want %s", again, first)
	}
	createLink(t, c, map[string]any{"id": ch.ID, "format": "svg"})

	if p := alice.post("/account/signing-keys/rotate", url.Values{"csrf": {csrf}}); p.status != http.StatusOK {
		t.Fatalf("rotate on the account page: %d %.300s", p.status, p.body)
	}
	links, err := st.CountDataLinks(ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	designs, err := st.CountLinkDesigns(ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if links != 0 || designs != 0 {
		t.Fatalf("after rotating the signing key the account keeps %d data links and %d designs, want none", links, designs)
	}
	l := createLink(t, c, dataLink(limit))
	pic := newLinkClient(t, "").open(t, l.URL)
	expectImage(t, "a data link made after the rotation", pic, "svg")
}
