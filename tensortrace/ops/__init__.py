"""Op definitions by family. Each family registers its ops when it is imported; the public
surface imports a family on first use (``api``), and the registry loads the one defining an op
it is asked for, so importing this package alone registers nothing."""
