enum TokenAuthPlaceholder {}
