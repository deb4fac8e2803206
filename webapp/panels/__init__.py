"""The page's panels: each reads and writes the tab state and asks the ruleset, never its name."""
