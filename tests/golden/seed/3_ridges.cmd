targets v100_sxm2 a100_sxm h100_sxm
