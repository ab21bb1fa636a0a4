"""From stored games to numbers: intervals, per-matchup metrics, tables."""
