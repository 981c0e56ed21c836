"""Images in samples: reading image references, sending them as image parts, and which judges can see them."""
