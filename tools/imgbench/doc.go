// Package imgbench measures what one chartd process serves on /img to a
// CDN edge: BenchmarkImgCDN, run by make bench. The package has no code
// of its own; the benchmark starts chartd and chartctl built from this
// tree, with a real Redis, and speaks to them over loopback HTTP.
package imgbench
