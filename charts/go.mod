module chartd.dev/charts

go 1.26.0
