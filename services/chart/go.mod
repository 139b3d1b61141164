module chartd.dev/services/chart

go 1.26.0

require (
	chartd.dev/charts v0.0.0
	chartd.dev/libs v0.0.0
	github.com/gorilla/mux v1.8.1
)

require github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3 // indirect

replace (
	chartd.dev/charts => ../../charts
	chartd.dev/libs => ../../libs
	github.com/google/pprof => github.com/google/pprof v0.0.0-20260802141513-ef3492d7dac3
)
