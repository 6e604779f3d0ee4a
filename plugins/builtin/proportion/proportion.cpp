// placeholder: proportion plugin (being written)
