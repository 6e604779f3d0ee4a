// placeholder: nodeorder plugin (being written)
