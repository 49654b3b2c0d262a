"""Analysis of kept tournaments: standings, paired comparisons, ladders, departures from a baseline,
the corruption study and learning curves."""
