local p = hmake Q { };
