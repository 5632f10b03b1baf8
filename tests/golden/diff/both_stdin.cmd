diff - -
