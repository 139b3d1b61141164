package dataset_test

import (
	"fmt"
	"time"

	"chartd.dev/libs/dataset"
)

// Parse reads CSV into a table of typed columns with ids c1, c2, … in the
// order sent: dates, numbers with grouping or a percent sign, and a blank
// cell (NaN); notices say what it read differently from what was written.
func ExampleParse() {
	tab, notices, err := dataset.Parse("Month,Sales,Share\n2024-01,\"1,200\",12%\n2024-02,950,9.5%\n2024-03,,11%", "csv")
	if err != nil {
		panic(err)
	}
	fmt.Println(tab.Rows, "rows,", len(notices), "notices")
	for _, c := range tab.Columns {
		switch c.Kind {
		case dataset.Date:
			fmt.Println(c.ID, c.Name, c.Kind, "by", c.DateUnit, "from", time.UnixMilli(int64(c.Num[0])).UTC().Format(time.DateOnly))
		default:
			fmt.Println(c.ID, c.Name, c.Kind, c.Num, "percent:", c.Percent)
		}
	}

	_, _, err = dataset.Parse("", "csv")
	fmt.Println(err)
	// Output:
	// 3 rows, 0 notices
	// c1 Month date by month from 2024-01-01
	// c2 Sales number [1200 950 NaN] percent: false
	// c3 Share number [12 9.5 11] percent: true
	// data is empty; send a header row and data rows
}
