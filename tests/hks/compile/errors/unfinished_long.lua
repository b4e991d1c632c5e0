x = [==[ long
