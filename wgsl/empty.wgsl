// placeholder so the embed pattern matches until kernels land
