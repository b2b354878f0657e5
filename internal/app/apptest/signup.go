package apptest

import "github.com/chromedp/chromedp"

// SignUp is creating an account on the sign-up page of the site at base, as
// a person types it (then signed in, on the page sign-up goes on to): one
// action to put at the start of a browser test's steps.
func SignUp(base, username, email, password string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Navigate(base+"/account/signup"),
		chromedp.WaitVisible(`#username`),
		chromedp.SendKeys(`#username`, username),
		chromedp.SendKeys(`#email`, email),
		chromedp.SendKeys(`#password`, password),
		chromedp.Submit(`#username`),
		chromedp.WaitNotPresent(`#email`),
	)
}
