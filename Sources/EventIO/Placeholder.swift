enum EventIOPlaceholder {}
