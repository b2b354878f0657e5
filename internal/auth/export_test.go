package auth

// ProcessAvatar is processAvatar, for the tests of package auth_test.
var ProcessAvatar = processAvatar
