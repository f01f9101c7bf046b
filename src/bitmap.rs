//! Bitmap engine (stub): popcount, bit search, BITOP and BITFIELD kernels over Redis string bytes.
