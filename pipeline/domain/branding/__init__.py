"""Brands: logos made safe to store and show, colours readable on screen and paper."""
