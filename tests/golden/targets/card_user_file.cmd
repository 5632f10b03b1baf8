target examples/seed/h100_2x_bw.roof
