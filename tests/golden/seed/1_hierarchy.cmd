target h100_sxm
