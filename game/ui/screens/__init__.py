"""Modal screens: new game, load, save as, help, settings, time travel, confirmations and errors."""
