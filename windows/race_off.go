//go:build !race

package windows

func raceWrote()  {}
func raceSynced() {}
