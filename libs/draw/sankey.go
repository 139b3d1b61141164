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
	items         []sankeyItem
	segs          []sankeySeg
	chains        [][]int // per link, its items from source to target
	itemLayers    [][]int // per column, its items top to bottom
	colGap, nodeW float64 // layout of the last draw, for the labels
	leftW, rightW float64 // room for the first and last column's names
	sortBy        string
	format        numFormat
	dropped       int
}

type sankeyNode struct {
	name       string
	in, out    float64
	layer      int
	color      string
	ins, outs  []int
	appearance int
}

func (n *sankeyNode) value() float64 { return math.Max(n.in, n.out) }

type sankeyLink struct {
	s, t int
	v    float64
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
	k.assignLayers()
	k.buildItems()
	k.orderLayers()
	// palette colours go to the nodes column by column, top to bottom, so
	// sources (whose colour their flows take) get them first
	c.colors.reserve(len(k.nodes))
	i := 0
	for _, layer := range k.itemLayers {
		for _, it := range layer {
			if n := k.items[it].node; n >= 0 {
				k.nodes[n].color = c.colors.of(k.nodes[n].name, i)
				i++
			}
		}
	}
	// node values are the labels: as many digits as tell them apart
	values := make([]float64, len(k.nodes))
	for n := range k.nodes {
		values[n] = k.nodes[n].value()
	}
	k.format = k.format.forLabels(values)
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

// sankeyItem is one box of a column: a node, or a virtual stop of a flow
// that passes through the column on its way to a later one. Flows are
// routed through their stops, so they pass between nodes and never over
// one.
type sankeyItem struct {
	node     int // -1 for a flow's stop
	layer    int
	v        float64
	y0, y1   float64
	ins, out []int // segment ids
}

// sankeySeg is the part of a flow between two neighbouring columns.
type sankeySeg struct{ a, b, link int }

// buildItems makes the items and segments: one item per drawn node (item
// n is node n) and one stop per column a flow passes through.
func (k *sankeyChart) buildItems() {
	k.items = make([]sankeyItem, len(k.nodes))
	for n := range k.nodes {
		k.items[n] = sankeyItem{node: n, layer: k.nodes[n].layer, v: k.nodes[n].value()}
	}
	k.chains = make([][]int, len(k.links))
	k.itemLayers = make([][]int, len(k.layers))
	for l, layer := range k.layers {
		k.itemLayers[l] = slices.Clone(layer)
	}
	for li, l := range k.links {
		chain := []int{l.s}
		for layer := k.nodes[l.s].layer + 1; layer < k.nodes[l.t].layer; layer++ {
			k.items = append(k.items, sankeyItem{node: -1, layer: layer, v: l.v})
			id := len(k.items) - 1
			chain = append(chain, id)
			// a stop starts next to the items its flow comes from
			k.itemLayers[layer] = append(k.itemLayers[layer], id)
		}
		chain = append(chain, l.t)
		k.chains[li] = chain
		for i := 0; i+1 < len(chain); i++ {
			k.segs = append(k.segs, sankeySeg{a: chain[i], b: chain[i+1], link: li})
			sid := len(k.segs) - 1
			k.items[chain[i]].out = append(k.items[chain[i]].out, sid)
			k.items[chain[i+1]].ins = append(k.items[chain[i+1]].ins, sid)
		}
	}
}

// orderLayers orders the items in each column: nodes by name or by value
// (flow stops after them, by barycentre), or (auto) by barycentre sweeps
// over nodes and stops alike, keeping the order with the fewest weighted
// crossings.
func (k *sankeyChart) orderLayers() {
	pos := make([]float64, len(k.items))
	setPos := func() {
		for _, layer := range k.itemLayers {
			for i, n := range layer {
				pos[n] = (float64(i) + 0.5) / float64(len(layer))
			}
		}
	}
	setPos()
	fixed := k.sortBy != "auto"
	if fixed {
		for _, layer := range k.itemLayers {
			slices.SortStableFunc(layer, func(a, b int) int {
				ia, ib := k.items[a], k.items[b]
				switch {
				case ia.node < 0 || ib.node < 0:
					return 0
				case k.sortBy == "alphabetical":
					return strings.Compare(k.nodes[ia.node].name, k.nodes[ib.node].name)
				}
				return cmpDesc(ia.v, ib.v)
			})
		}
		setPos()
	}
	// counting crossings is quadratic in the segments: with very many the
	// sweeps run without it and the last order stands
	count := len(k.segs) <= 1500
	best := math.Inf(1)
	if count {
		best = k.crossings(pos)
	}
	bestOrder := k.snapshot()
	bary := make([]float64, len(k.items))
	for sweep := 0; sweep < 12 && best > 0; sweep++ {
		down := sweep%2 == 0
		for step := 1; step < len(k.itemLayers); step++ {
			l := step
			if !down {
				l = len(k.itemLayers) - 1 - step
			}
			layer := k.itemLayers[l]
			for _, n := range layer {
				segs, far := k.items[n].ins, func(s int) int { return k.segs[s].a }
				if !down {
					segs, far = k.items[n].out, func(s int) int { return k.segs[s].b }
				}
				sum, wsum := 0.0, 0.0
				for _, s := range segs {
					v := k.links[k.segs[s].link].v
					sum += pos[far(s)] * v
					wsum += v
				}
				bary[n] = pos[n]
				if wsum > 0 {
					bary[n] = sum / wsum
				}
			}
			if fixed {
				// nodes keep their sorted order; stops slot in by barycentre
				var nodes []int
				for _, n := range layer {
					if k.items[n].node >= 0 {
						nodes = append(nodes, n)
					}
				}
				for i, n := range nodes {
					bary[n] = (float64(i) + 0.5) / float64(len(nodes))
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
		k.itemLayers = bestOrder
	}
}

// snapshot copies the current column orders.
func (k *sankeyChart) snapshot() [][]int {
	out := make([][]int, len(k.itemLayers))
	for i, l := range k.itemLayers {
		out[i] = slices.Clone(l)
	}
	return out
}

// crossings weighs every pair of crossing segments between the same two
// columns by the product of their flows.
func (k *sankeyChart) crossings(pos []float64) float64 {
	total := 0.0
	for a := 0; a < len(k.segs); a++ {
		sa := k.segs[a]
		la := k.items[sa.a].layer
		for b := a + 1; b < len(k.segs); b++ {
			sb := k.segs[b]
			if k.items[sb.a].layer != la {
				continue
			}
			if (pos[sa.a]-pos[sb.a])*(pos[sa.b]-pos[sb.b]) < 0 {
				total += k.links[sa.link].v * k.links[sb.link].v
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
	fs := c.fsLabel
	lineH := fs * 1.35
	nodeW := 12 * c.k
	last := len(k.itemLayers) - 1
	// names of the first column sit left of their nodes, of the last
	// column right of them, outside the flows; a middle column's names sit
	// in a band kept free above each node
	leftW, rightW := 0.0, 0.0
	for _, n := range k.itemLayers[0] {
		if last > 0 {
			leftW = math.Max(leftW, k.labelWidth(c, n))
		}
	}
	for _, n := range k.itemLayers[last] {
		rightW = math.Max(rightW, k.labelWidth(c, n))
	}
	leftW, rightW = math.Min(leftW, area.w*0.22), math.Min(rightW, area.w*0.22)
	x0 := area.x
	if leftW > 0 {
		x0 += leftW + 6*c.k
	}
	x1 := area.right() - rightW - 6*c.k - nodeW
	colGap := (x1 - x0) / float64(max(last, 1))
	k.colGap, k.nodeW, k.leftW, k.rightW = colGap, nodeW, leftW, rightW
	xOf := func(it int) float64 { return x0 + float64(k.items[it].layer)*colGap }
	band := func(it int) float64 {
		if l := k.items[it].layer; k.items[it].node >= 0 && l > 0 && l < last {
			return lineH
		}
		return 0
	}
	maxN := 0
	for _, layer := range k.itemLayers {
		maxN = max(maxN, len(layer))
	}
	pad := math.Min(12*c.k, area.h*0.4/float64(max(maxN-1, 1)))
	gapBefore := func(layer []int, i int) float64 {
		g := band(layer[i])
		if i > 0 {
			if k.items[layer[i]].node < 0 && k.items[layer[i-1]].node < 0 {
				g += math.Min(2*c.k, pad)
			} else {
				g += pad
			}
		}
		return g
	}
	ky := math.Inf(1)
	for _, layer := range k.itemLayers {
		sum, gaps := 0.0, 0.0
		for i, it := range layer {
			sum += k.items[it].v
			gaps += gapBefore(layer, i)
		}
		ky = math.Min(ky, math.Max(area.h-gaps, area.h*0.2)/sum)
	}
	height := func(it int) float64 { return math.Max(k.items[it].v*ky, 1) }
	// resolve keeps a column's order and gaps inside the area, moving as
	// little as it can
	resolve := func(layer []int) {
		y := area.y
		for i, it := range layer {
			item := &k.items[it]
			item.y0 = math.Max(item.y0, y+gapBefore(layer, i))
			item.y1 = item.y0 + height(it)
			y = item.y1
		}
		y = area.bottom()
		for i := len(layer) - 1; i >= 0; i-- {
			item := &k.items[layer[i]]
			if item.y1 > y {
				item.y1 = y
				item.y0 = y - height(layer[i])
			}
			y = item.y0 - gapBefore(layer, i)
		}
	}
	for _, layer := range k.itemLayers {
		total := 0.0
		for i, it := range layer {
			total += height(it) + gapBefore(layer, i)
		}
		y := area.y + (area.h-total)/2
		for i, it := range layer {
			y += gapBefore(layer, i)
			k.items[it].y0, k.items[it].y1 = y, y+height(it)
			y = k.items[it].y1
		}
	}
	// relaxation (as d3-sankey): move each item towards the flow-weighted
	// centre of its neighbours, alternately from the left and the right
	center := func(it int) float64 { return (k.items[it].y0 + k.items[it].y1) / 2 }
	alpha := 1.0
	for iter := 0; iter < 8; iter++ {
		alpha *= 0.9
		for step := 0; step < len(k.itemLayers); step++ {
			l, fromLeft := step, iter%2 == 0
			if !fromLeft {
				l = last - step
			}
			layer := k.itemLayers[l]
			for _, it := range layer {
				segs, far := k.items[it].ins, func(sg int) int { return k.segs[sg].a }
				if !fromLeft {
					segs, far = k.items[it].out, func(sg int) int { return k.segs[sg].b }
				}
				sum, wsum := 0.0, 0.0
				for _, sg := range segs {
					v := k.links[k.segs[sg].link].v
					sum += center(far(sg)) * v
					wsum += v
				}
				if wsum > 0 {
					d := (sum/wsum - center(it)) * alpha
					k.items[it].y0 += d
					k.items[it].y1 += d
				}
			}
			resolve(layer)
		}
	}
	// stack segment ends on each item, ordered by the other end's height
	// so bands leave an item without crossing each other
	for it := range k.items {
		item := &k.items[it]
		slices.SortStableFunc(item.out, func(a, b int) int { return cmpAsc(center(k.segs[a].b), center(k.segs[b].b)) })
		slices.SortStableFunc(item.ins, func(a, b int) int { return cmpAsc(center(k.segs[a].a), center(k.segs[b].a)) })
	}
	sy := make([]float64, len(k.segs))
	ty := make([]float64, len(k.segs))
	for it := range k.items {
		y := k.items[it].y0
		for _, sg := range k.items[it].out {
			sy[sg] = y
			y += k.links[k.segs[sg].link].v * ky
		}
		y = k.items[it].y0
		for _, sg := range k.items[it].ins {
			ty[sg] = y
			y += k.links[k.segs[sg].link].v * ky
		}
	}
	segOf := make(map[[2]int]int, len(k.segs))
	for i, sg := range k.segs {
		segOf[[2]int{sg.a, sg.b}] = i
	}
	w := &c.w
	w.s(`<g fill-opacity="0.38">`)
	for li, l := range k.links {
		chain := k.chains[li]
		width := l.v * ky
		segIDs := make([]int, len(chain)-1)
		for i := range segIDs {
			segIDs[i] = segOf[[2]int{chain[i], chain[i+1]}]
		}
		if c.wantMarks {
			// a flow is listed at the middle of its first stretch
			ax, bx := xOf(chain[0])+nodeW, xOf(chain[1])
			c.mark((ax+bx)/2, (sy[segIDs[0]]+ty[segIDs[0]]+width)/2, 0, 0,
				k.nodes[l.s].name+" → "+k.nodes[l.t].name, k.val.Name, c.value(l.v, k.format))
		}
		w.s(`<path fill="`)
		w.s(k.nodes[l.s].color)
		w.s(`" d="M`)
		w.pt(xOf(chain[0])+nodeW, sy[segIDs[0]])
		for i, sg := range segIDs {
			ax, bx := xOf(chain[i])+nodeW, xOf(chain[i+1])
			mx := (ax + bx) / 2
			w.s("C")
			w.pt(mx, sy[sg])
			w.s(" ")
			w.pt(mx, ty[sg])
			w.s(" ")
			w.pt(bx, ty[sg])
			if i+1 < len(segIDs) {
				w.s("H")
				w.f(bx + nodeW)
			}
		}
		for i := len(segIDs) - 1; i >= 0; i-- {
			sg := segIDs[i]
			ax, bx := xOf(chain[i])+nodeW, xOf(chain[i+1])
			mx := (ax + bx) / 2
			if i == len(segIDs)-1 {
				w.s("V")
				w.f(ty[sg] + width)
			} else {
				w.s("H")
				w.f(bx)
			}
			w.s("C")
			w.pt(mx, ty[sg]+width)
			w.s(" ")
			w.pt(mx, sy[sg]+width)
			w.s(" ")
			w.pt(ax, sy[sg]+width)
		}
		w.s(`Z"/>`)
	}
	w.s(`</g>`)
	for _, layer := range k.itemLayers {
		for _, it := range layer {
			item := &k.items[it]
			if item.node < 0 {
				continue
			}
			w.s(`<rect`)
			w.af("x", xOf(it))
			w.af("y", item.y0)
			w.af("width", nodeW)
			w.af("height", item.y1-item.y0)
			w.s(` fill="`)
			w.s(k.nodes[item.node].color)
			w.s(`"/>`)
		}
	}
	k.drawLabels(c, xOf)
}

// labelWidth is the width of a node's label (name, and value when labels
// are on); 0 for a flow's stop.
func (k *sankeyChart) labelWidth(c *canvas, it int) float64 {
	n := k.items[it].node
	if n < 0 {
		return 0
	}
	fs := c.fsLabel
	w := c.measure(k.nodes[n].name, fs, true)
	if c.style.Labels.Show {
		w += c.measureBytes(appendValue(c.scratch[:0], k.nodes[n].value(), k.format), fs, false) + fs*0.35
	}
	return w
}

// drawLabels names the nodes beside them and never on a flow: the first
// column at the left of its nodes, the last at the right, a middle column
// in the band kept free above each node. A side label that would overlap
// the one above it is left out.
func (k *sankeyChart) drawLabels(c *canvas, xOf func(int) float64) {
	fs := c.fsLabel
	lineH := fs * 1.2
	last := len(k.itemLayers) - 1
	showValue := c.style.Labels.Show
	w := &c.w
	w.s(`<g class="labels"`)
	if !c.transparent {
		// a halo keeps a middle label readable where a curve passes close
		w.s(` stroke="`)
		w.s(c.background)
		w.s(`" stroke-width="3" stroke-linejoin="round" paint-order="stroke"`)
	}
	w.s(`>`)
	for l, layer := range k.itemLayers {
		prev := math.Inf(-1) // the bottom of the last side label drawn
		for _, it := range layer {
			item := &k.items[it]
			if item.node < 0 {
				continue
			}
			nd := &k.nodes[item.node]
			cy := (item.y0 + item.y1) / 2
			x, y := xOf(it), cy+c.mid(fs)
			st := textStyle{size: fs, fill: c.inkTitle, bold: true}
			maxW := k.colGap * 0.9
			switch {
			case l == 0 && last > 0:
				st.anchor = "end"
				x -= 6 * c.k
				maxW = k.leftW
			case l == last:
				x += k.nodeW + 6*c.k
				maxW = k.rightW
				if last == 0 {
					maxW = c.width / 3
				}
			default:
				st.anchor = "middle"
				x += k.nodeW / 2
				y = item.y0 - fs*0.35
			}
			var val []byte
			vw := 0.0
			if showValue {
				val = appendValue(c.scratch[:0], nd.value(), k.format)
				vw = c.measureBytes(val, fs, false) + fs*0.35
			}
			// a long name wraps to the lines its node is tall (three at
			// most; two above a middle node), and is cut only past them
			maxLines := 2
			if st.anchor != "middle" {
				maxLines = min(3, max(1, int((item.y1-item.y0)/lineH)))
			}
			lines := c.fitLines(nd.name, fs, true, maxW-vw, maxLines)
			if len(lines) > 1 && splitsWord(nd.name, lines) {
				lines = c.fitLines(nd.name, fs, true, maxW-vw, 1) // a word too wide is cut, not broken
			}
			if len(lines) == 0 {
				continue
			}
			n := float64(len(lines))
			if st.anchor != "middle" {
				top := cy - n*lineH/2
				if top < prev {
					continue
				}
				prev = cy + n*lineH/2
				y -= (n - 1) * lineH / 2
			} else {
				y -= (n - 1) * lineH
			}
			c.openText(x, y, st)
			for i, line := range lines {
				if len(lines) > 1 {
					w.s(`<tspan`)
					w.af("x", math.Round(x))
					w.af("y", math.Round(y+float64(i)*lineH))
					w.s(`>`)
				}
				w.s("\u2068") // isolate: a right-to-left name keeps its value after it
				w.esc(line)
				w.s("\u2069")
				if len(lines) > 1 {
					w.s(`</tspan>`)
				}
			}
			if showValue {
				w.s(` <tspan font-weight="normal" fill="`)
				w.s(c.inkSubtitle)
				w.s(`">`)
				w.escBytes(val)
				w.s(`</tspan>`)
			}
			w.s(`</text>`)
		}
	}
	w.s(`</g>`)
}
