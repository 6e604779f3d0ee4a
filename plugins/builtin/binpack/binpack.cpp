// placeholder: binpack plugin (being written)
