target v100_sxm2
