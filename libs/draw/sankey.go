package draw

import (
	"math"
	"slices"
	"strings"

	"chartd.dev/libs/dataset"
)

// sankeyChart draws flows between nodes in columns. Rows with the same
// source and target add up; blank, zero or negative flows, flows from a
// node to itself and flows that would close a cycle are left out.
type sankeyChart struct {
	src, dst, val *dataset.Column
	nodes         []sankeyNode
	links         []sankeyLink
	layers        [][]int
	sortBy        string
	format        numFormat
	dropped       int
}

type sankeyNode struct {
	name       string
	in, out    float64
	layer      int
	x, y0, y1  float64
	color      string
	ins, outs  []int
	appearance int
}

func (n *sankeyNode) value() float64 { return math.Max(n.in, n.out) }

type sankeyLink struct {
	s, t   int
	v      float64
	sy, ty float64 // top of the band at the source and at the target
	width  float64
}

func newSankey(c *canvas, r roleColumns) *sankeyChart {
	k := &sankeyChart{src: r.one("source"), dst: r.one("target"), val: r.one("value")}
	k.sortBy = optString(c.spec.Options, "nodeSort", "auto", "auto", "alphabetical", "value")
	k.format = baseFormat(c.style, []*dataset.Column{k.val})
	srcNames, dstNames := columnLabels(k.src), columnLabels(k.dst)
	index := map[string]int{}
	node := func(name string) int {
		if i, ok := index[name]; ok {
			return i
		}
		index[name] = len(k.nodes)
		k.nodes = append(k.nodes, sankeyNode{name: name, appearance: len(k.nodes)})
		return len(k.nodes) - 1
	}
	pairs := map[[2]int]int{}
	for i := 0; i < c.table.Rows; i++ {
		v := k.val.Num[i]
		s, t := srcNames[i], dstNames[i]
		if isBlank(v) || v <= 0 || s == "" || t == "" {
			continue
		}
		if s == t {
			k.dropped++
			continue
		}
		si, ti := node(s), node(t)
		if li, ok := pairs[[2]int{si, ti}]; ok {
			k.links[li].v += v
			continue
		}
		pairs[[2]int{si, ti}] = len(k.links)
		k.links = append(k.links, sankeyLink{s: si, t: ti, v: v})
	}
	k.breakCycles()
	for li, l := range k.links {
		k.nodes[l.s].outs = append(k.nodes[l.s].outs, li)
		k.nodes[l.s].out += l.v
		k.nodes[l.t].ins = append(k.nodes[l.t].ins, li)
		k.nodes[l.t].in += l.v
	}
	for i := range k.nodes {
		k.nodes[i].color = c.colors.of(k.nodes[i].name, i)
	}
	k.assignLayers()
	k.orderLayers()
	return k
}

// breakCycles drops the links that close a cycle (found by depth-first
// search in data order), since flows must run left to right.
func (k *sankeyChart) breakCycles() {
	adj := make([][]int, len(k.nodes))
	for li, l := range k.links {
		adj[l.s] = append(adj[l.s], li)
	}
	state := make([]byte, len(k.nodes)) // 0 new, 1 on stack, 2 done
	drop := make([]bool, len(k.links))
	type frame struct{ node, next int }
	for start := range k.nodes {
		if state[start] != 0 {
			continue
		}
		stack := []frame{{start, 0}}
		state[start] = 1
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(adj[top.node]) {
				state[top.node] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			li := adj[top.node][top.next]
			top.next++
			switch t := k.links[li].t; state[t] {
			case 1:
				drop[li] = true
			case 0:
				state[t] = 1
				stack = append(stack, frame{t, 0})
			}
		}
	}
	kept := k.links[:0]
	for li, l := range k.links {
		if drop[li] {
			k.dropped++
			continue
		}
		kept = append(kept, l)
	}
	k.links = kept
}

// assignLayers puts each node one column after its furthest source
// (longest path) and every node without outflow in the last column.
func (k *sankeyChart) assignLayers() {
	indeg := make([]int, len(k.nodes))
	for _, l := range k.links {
		indeg[l.t]++
	}
	queue := make([]int, 0, len(k.nodes))
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, i)
		}
	}
	last := 0
	for q := 0; q < len(queue); q++ {
		n := queue[q]
		for _, li := range k.nodes[n].outs {
			t := k.links[li].t
			k.nodes[t].layer = max(k.nodes[t].layer, k.nodes[n].layer+1)
			last = max(last, k.nodes[t].layer)
			if indeg[t]--; indeg[t] == 0 {
				queue = append(queue, t)
			}
		}
	}
	for i := range k.nodes {
		if len(k.nodes[i].outs) == 0 && len(k.nodes[i].ins) > 0 {
			k.nodes[i].layer = last
		}
	}
	k.layers = make([][]int, last+1)
	for i := range k.nodes {
		if len(k.nodes[i].ins)+len(k.nodes[i].outs) == 0 {
			continue // every flow of this node closed a cycle
		}
		k.layers[k.nodes[i].layer] = append(k.layers[k.nodes[i].layer], i)
	}
}

// orderLayers orders the nodes in each column: by name, by value, or
// (auto) by barycentre sweeps keeping the order with the fewest weighted
// crossings.
func (k *sankeyChart) orderLayers() {
	switch k.sortBy {
	case "alphabetical":
		for _, layer := range k.layers {
			slices.SortStableFunc(layer, func(a, b int) int { return strings.Compare(k.nodes[a].name, k.nodes[b].name) })
		}
		return
	case "value":
		for _, layer := range k.layers {
			slices.SortStableFunc(layer, func(a, b int) int { return cmpDesc(k.nodes[a].value(), k.nodes[b].value()) })
		}
		return
	}
	pos := make([]float64, len(k.nodes))
	setPos := func() {
		for _, layer := range k.layers {
			for i, n := range layer {
				pos[n] = (float64(i) + 0.5) / float64(len(layer))
			}
		}
	}
	setPos()
	// counting crossings is quadratic in the links: with very many links
	// the sweeps run without it and the last order stands
	count := len(k.links) <= 1200
	best := math.Inf(1)
	if count {
		best = k.crossings(pos)
	}
	bestOrder := k.snapshot()
	bary := make([]float64, len(k.nodes))
	for sweep := 0; sweep < 8 && best > 0; sweep++ {
		down := sweep%2 == 0
		for step := 1; step < len(k.layers); step++ {
			l := step
			if !down {
				l = len(k.layers) - 1 - step
			}
			layer := k.layers[l]
			for _, n := range layer {
				links := k.nodes[n].ins
				end := func(li int) int { return k.links[li].s }
				if !down {
					links = k.nodes[n].outs
					end = func(li int) int { return k.links[li].t }
				}
				sum, wsum := 0.0, 0.0
				for _, li := range links {
					sum += pos[end(li)] * k.links[li].v
					wsum += k.links[li].v
				}
				bary[n] = pos[n]
				if wsum > 0 {
					bary[n] = sum / wsum
				}
			}
			slices.SortStableFunc(layer, func(a, b int) int { return cmpAsc(bary[a], bary[b]) })
			for i, n := range layer {
				pos[n] = (float64(i) + 0.5) / float64(len(layer))
			}
		}
		if !count {
			continue
		}
		if c := k.crossings(pos); c < best {
			best, bestOrder = c, k.snapshot()
		}
	}
	if count {
		k.layers = bestOrder
	}
}

// snapshot copies the current column orders.
func (k *sankeyChart) snapshot() [][]int {
	out := make([][]int, len(k.layers))
	for i, l := range k.layers {
		out[i] = slices.Clone(l)
	}
	return out
}

// crossings weighs every pair of crossing links that share both end columns.
func (k *sankeyChart) crossings(pos []float64) float64 {
	total := 0.0
	for a := 0; a < len(k.links); a++ {
		la := k.links[a]
		for b := a + 1; b < len(k.links); b++ {
			lb := k.links[b]
			if k.nodes[la.s].layer != k.nodes[lb.s].layer || k.nodes[la.t].layer != k.nodes[lb.t].layer {
				continue
			}
			if (pos[la.s]-pos[lb.s])*(pos[la.t]-pos[lb.t]) < 0 {
				total += la.v * lb.v
			}
		}
	}
	return total
}

func cmpAsc(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpDesc(a, b float64) int { return cmpAsc(b, a) }

func (k *sankeyChart) empty() bool { return len(k.links) == 0 }

func (k *sankeyChart) summary() (string, string) {
	name := "Sankey diagram of " + k.val.Name + " from " + k.src.Name + " to " + k.dst.Name
	if k.empty() {
		return name, name + ", no flows to show"
	}
	best := 0
	for i, l := range k.links {
		if l.v > k.links[best].v {
			best = i
		}
	}
	l := k.links[best]
	nodes := 0
	for _, layer := range k.layers {
		nodes += len(layer)
	}
	desc := name + ", " + plural(nodes, "node", "nodes") + " in " + plural(len(k.layers), "column", "columns") + ", " +
		plural(len(k.links), "flow", "flows") + ", largest " + k.nodes[l.s].name + " → " + k.nodes[l.t].name + " " + formatValue(l.v, k.format)
	if k.dropped > 0 {
		desc += ", " + plural(k.dropped, "circular flow", "circular flows") + " left out"
	}
	return name, desc
}

func (k *sankeyChart) legend(c *canvas, area rect) rect { return area }

func (k *sankeyChart) draw(c *canvas, area rect) {
	nodeW := 12 * c.k
	maxN := 0
	for _, layer := range k.layers {
		maxN = max(maxN, len(layer))
	}
	pad := math.Min(12*c.k, area.h*0.4/float64(max(maxN-1, 1)))
	ky := math.Inf(1)
	for _, layer := range k.layers {
		sum := 0.0
		for _, n := range layer {
			sum += k.nodes[n].value()
		}
		ky = math.Min(ky, (area.h-float64(len(layer)-1)*pad)/sum)
	}
	colGap := (area.w - nodeW) / float64(max(len(k.layers)-1, 1))
	for l, layer := range k.layers {
		total := float64(len(layer)-1) * pad
		for _, n := range layer {
			total += k.nodes[n].value() * ky
		}
		y := area.y + (area.h-total)/2
		for _, n := range layer {
			nd := &k.nodes[n]
			nd.x = area.x + float64(l)*colGap
			nd.y0 = y
			nd.y1 = y + math.Max(nd.value()*ky, 1)
			y = nd.y1 + pad
		}
	}
	// stack link ends on each node, ordered by the other end's height so
	// bands leave a node without crossing each other
	center := func(n int) float64 { return (k.nodes[n].y0 + k.nodes[n].y1) / 2 }
	for n := range k.nodes {
		nd := &k.nodes[n]
		slices.SortStableFunc(nd.outs, func(a, b int) int { return cmpAsc(center(k.links[a].t), center(k.links[b].t)) })
		slices.SortStableFunc(nd.ins, func(a, b int) int { return cmpAsc(center(k.links[a].s), center(k.links[b].s)) })
		y := nd.y0
		for _, li := range nd.outs {
			k.links[li].sy = y
			k.links[li].width = k.links[li].v * ky
			y += k.links[li].width
		}
		y = nd.y0
		for _, li := range nd.ins {
			k.links[li].ty = y
			y += k.links[li].v * ky
		}
	}
	w := &c.w
	w.s(`<g fill-opacity="0.38">`)
	for _, l := range k.links {
		sx, tx := k.nodes[l.s].x+nodeW, k.nodes[l.t].x
		mx := (sx + tx) / 2
		w.s(`<path fill="`)
		w.s(k.nodes[l.s].color)
		w.s(`" d="M`)
		w.pt(sx, l.sy)
		w.s("C")
		w.pt(mx, l.sy)
		w.s(" ")
		w.pt(mx, l.ty)
		w.s(" ")
		w.pt(tx, l.ty)
		w.s("L")
		w.pt(tx, l.ty+l.width)
		w.s("C")
		w.pt(mx, l.ty+l.width)
		w.s(" ")
		w.pt(mx, l.sy+l.width)
		w.s(" ")
		w.pt(sx, l.sy+l.width)
		w.s(`Z"/>`)
	}
	w.s(`</g>`)
	for n := range k.nodes {
		nd := &k.nodes[n]
		if len(nd.ins)+len(nd.outs) == 0 {
			continue
		}
		w.s(`<rect`)
		w.af("x", nd.x)
		w.af("y", nd.y0)
		w.af("width", nodeW)
		w.af("height", nd.y1-nd.y0)
		w.s(` fill="`)
		w.s(nd.color)
		w.s(`"/>`)
	}
	k.drawLabels(c, nodeW, colGap)
}

// drawLabels names the nodes beside them, inside the diagram: right of the
// node except in the last column. A label that would overlap the one above
// it in the column is left out.
func (k *sankeyChart) drawLabels(c *canvas, nodeW, colGap float64) {
	fs := c.fsLabel
	lineH := fs * 1.2
	maxW := colGap - nodeW - 14*c.k
	if len(k.layers) == 1 {
		maxW = c.width / 3
	}
	showValue := c.style.Labels.Show
	w := &c.w
	w.s(`<g class="labels">`)
	for l, layer := range k.layers {
		last := l == len(k.layers)-1 && l > 0
		prev := math.Inf(-1)
		for _, n := range layer {
			nd := &k.nodes[n]
			cy := (nd.y0 + nd.y1) / 2
			if cy-prev < lineH {
				continue
			}
			prev = cy
			var val []byte
			vw := 0.0
			if showValue {
				val = appendValue(c.scratch[:0], nd.value(), k.format)
				vw = c.measureBytes(val, fs, false) + fs*0.35
			}
			name := c.fonts.Truncate(nd.name, fs, true, maxW-vw)
			if name == "" {
				continue
			}
			st := textStyle{size: fs, fill: inkTitle, bold: true}
			x := nd.x + nodeW + 6*c.k
			if last {
				st.anchor = "end"
				x = nd.x - 6*c.k
			}
			c.openText(x, cy+c.mid(fs), st)
			w.s("\u2068") // isolate: a right-to-left name keeps its value after it
			w.esc(name)
			w.s("\u2069")
			if showValue {
				w.s(` <tspan font-weight="normal" fill="` + inkSubtitle + `">`)
				w.b = appendEscaped(w.b, val)
				w.s(`</tspan>`)
			}
			w.s(`</text>`)
		}
	}
	w.s(`</g>`)
}
