targets
