// Where the dashboard keeps the operator's token: never on the page in clear, never in the address the browser
// records. A token in the fragment (`/dashboard#token=...`) is read once, kept in this tab's sessionStorage, and
// removed from the address with history.replaceState; one typed into the password field is kept the same way.

const STORAGE_KEY = "rollcall.dashboard.token";

/** The token from the address's fragment (which is then removed from it), or the one this tab kept. */
export function takeToken(): string | undefined {
    const fragment = new URLSearchParams(location.hash.slice(1));
    const fromFragment = fragment.get("token");
    if (fromFragment !== null) {
        fragment.delete("token");
        const rest = fragment.toString();
        history.replaceState(history.state, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
        if (fromFragment !== "") {
            keepToken(fromFragment);
            return fromFragment;
        }
    }
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
}

/** Keeps a token for this tab (it survives a reload, not the tab). */
export function keepToken(token: string): void {
    sessionStorage.setItem(STORAGE_KEY, token);
}

/** Forgets the kept token. */
export function forgetToken(): void {
    sessionStorage.removeItem(STORAGE_KEY);
}
