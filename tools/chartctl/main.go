// Command chartctl administers chartd accounts from the command line:
// accounts, API keys, signing keys for image links and plans. It works on
// the same store as chartd: the SQLite file in -data-dir, or PostgreSQL
// with -postgres-url. Every verb prints one JSON value on stdout.
//
// Signing-key secrets are stored sealed under chartd's server key
// (libs/signing): -secrets-key-file names its file; without it the key is
// <data-dir>/secrets.key, generated when missing, as chartd -target=all
// does. With -postgres-url the cluster's key file must be named.
//
// With -redis-url (the cluster's Redis), revoking a key, rotating or
// revoking a signing key and setting a plan are announced to every chartd
// process (libs/revoke), whose caches drop the key at once; without it
// they drop it within their TTL (-gateway.key-cache-ttl,
// -render.signing-key-ttl).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/people"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/revoke"
	"chartd.dev/libs/secrets"
	"chartd.dev/libs/signing"
	"chartd.dev/libs/store"
	"chartd.dev/libs/store/postgres"
	"chartd.dev/libs/store/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chartctl:", err)
		os.Exit(2)
	}
}

const usage = `usage: chartctl [-data-dir DIR | -postgres-url URL [-redis-url URL]] [-secrets-key-file FILE] VERB ...

  account create -plan free|pro [-key-name NAME] [-email EMAIL]
                                                  new account and its first API key (and a site user
                                                  without a password: sign in with signin-link)
  password set -email EMAIL [-password-file FILE] set a site user's password (read from FILE, or stdin
                                                  with -); ends the user's sessions
  signin link -email EMAIL -public-url URL        one-time sign-in link for the site, valid 15 minutes
  account list
  key create -account ID [-name NAME]             new API key (shown once)
  key list -account ID
  key revoke -account ID -key KEY_ID
  signing-key rotate -account ID                  new image-link signing key; older ones are revoked
  signing-key revoke -account ID -kid KID
  secrets migrate                                 seal signing-key secrets stored raw by earlier versions
  secrets rotate                                  re-seal every signing-key secret under the key file's first key, in one transaction
  plan set -account ID -plan free|pro`

func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("chartctl", flag.ContinueOnError)
	dataDir := fs.String("data-dir", envOr(getenv, "CHARTD_DATA_DIR", "./data"), "directory of the embedded SQLite store")
	pgURL := fs.String("postgres-url", getenv("CHARTD_POSTGRES_URL"), "PostgreSQL URL (the cluster's store)")
	keyFile := fs.String("secrets-key-file", getenv("CHARTD_SECRETS_KEY_FILE"),
		"file holding chartd's server key, which seals signing-key secrets: 64 hex characters, mode 0600 "+
			"(default <data-dir>/secrets.key, generated when missing; required with -postgres-url)")
	redisURL := fs.String("redis-url", getenv("CHARTD_REDIS_URL"), "Redis URL (the cluster's): revocations and plan changes reach every chartd process's caches at once")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), usage)
		fmt.Fprintln(fs.Output(), "\nflags (each also read from CHARTD_<FLAG>):")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) < 2 {
		return errors.New(usage)
	}
	verb := rest[0] + " " + rest[1]
	var box *secrets.Box
	if verb == "signing-key rotate" || verb == "secrets migrate" || verb == "secrets rotate" {
		// The verbs that seal load the server key first: a missing or
		// unsafe key file stops them before the store is touched.
		var err error
		if box, err = keyBox(*keyFile, *dataDir, *pgURL); err != nil {
			return err
		}
	}
	st, err := openStore(ctx, *dataDir, *pgURL)
	if err != nil {
		return err
	}
	defer st.Close()
	c := cli{st: st, out: out, in: os.Stdin, box: box, err: os.Stderr}
	if *redisURL != "" {
		opts, err := redis.ParseURL(*redisURL)
		if err != nil {
			return fmt.Errorf("-redis-url: %w", err)
		}
		rc := redis.NewClient(opts)
		defer rc.Close()
		n := revoke.NewRedis(ctx, rc, revoke.RedisOptions{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		defer n.Close()
		c.revoke = n
	}
	sub := flag.NewFlagSet(verb, flag.ContinueOnError)
	account := sub.String("account", "", "account id")
	planID := sub.String("plan", "", "plan: free or pro")
	name := sub.String("name", "default", "key name")
	keyName := sub.String("key-name", "default", "name of the first API key")
	keyID := sub.String("key", "", "API key id")
	kid := sub.String("kid", "", "signing key id")
	email := sub.String("email", "", "email of the site user")
	pwFile := sub.String("password-file", "-", "file holding the password on its first line; - for stdin")
	publicURL := sub.String("public-url", getenv("CHARTD_PUBLIC_URL"), "chartd's public URL, for the sign-in link")
	if err := sub.Parse(rest[2:]); err != nil {
		return err
	}
	if sub.NArg() > 0 {
		return fmt.Errorf("%s: unexpected arguments %s", verb, strings.Join(sub.Args(), " "))
	}
	need := func(pairs ...string) error {
		for i := 0; i < len(pairs); i += 2 {
			if pairs[i+1] == "" {
				return fmt.Errorf("%s needs -%s", verb, pairs[i])
			}
		}
		return nil
	}
	switch verb {
	case "account create":
		if err := need("plan", *planID); err != nil {
			return err
		}
		return c.accountCreate(ctx, *planID, *keyName, *email)
	case "password set":
		if err := need("email", *email); err != nil {
			return err
		}
		return c.passwordSet(ctx, *email, *pwFile)
	case "account list":
		return c.accountList(ctx)
	case "key create":
		if err := need("account", *account); err != nil {
			return err
		}
		return c.keyCreate(ctx, *account, *name)
	case "key list":
		if err := need("account", *account); err != nil {
			return err
		}
		return c.keyList(ctx, *account)
	case "key revoke":
		if err := need("account", *account, "key", *keyID); err != nil {
			return err
		}
		return c.keyRevoke(ctx, *account, *keyID)
	case "signing-key rotate":
		if err := need("account", *account); err != nil {
			return err
		}
		return c.signingRotate(ctx, *account)
	case "signing-key revoke":
		if err := need("account", *account, "kid", *kid); err != nil {
			return err
		}
		return c.signingRevoke(ctx, *account, *kid)
	case "secrets migrate":
		return c.secretsMigrate(ctx)
	case "secrets rotate":
		return c.secretsRotate(ctx)
	case "signin link":
		if err := need("email", *email, "public-url", *publicURL); err != nil {
			return err
		}
		return c.signinLink(ctx, *email, *publicURL)
	case "plan set":
		if err := need("account", *account, "plan", *planID); err != nil {
			return err
		}
		return c.planSet(ctx, *account, *planID)
	}
	return fmt.Errorf("unknown verb %q\n%s", verb, usage)
}

func envOr(getenv func(string) string, k, def string) string {
	if v := getenv(k); v != "" {
		return v
	}
	return def
}

func openStore(ctx context.Context, dataDir, pgURL string) (store.Store, error) {
	if pgURL != "" {
		return postgres.Open(ctx, pgURL)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	return sqlite.Open(ctx, filepath.Join(dataDir, "chartd.db"))
}

// keyBox loads the server key that seals signing-key secrets: the named
// file, else (on the embedded store) <data-dir>/secrets.key, generated when
// missing. On PostgreSQL the file must be named: a key generated here
// would not be the cluster's, and links signed under it would never
// verify.
func keyBox(keyFile, dataDir, pgURL string) (*secrets.Box, error) {
	if keyFile == "" && pgURL != "" {
		return nil, errors.New("-postgres-url needs -secrets-key-file (or CHARTD_SECRETS_KEY_FILE): the cluster's server key, which seals signing-key secrets")
	}
	return secrets.Load(keyFile, dataDir)
}

type cli struct {
	st  store.Store
	out io.Writer
	// in is where password set reads a password given as "-".
	in io.Reader
	// box is the server key, loaded only for the verbs that seal.
	box *secrets.Box
	// revoke, with -redis-url, tells chartd's processes of revocations.
	revoke revoke.Notifier
	// err is where warnings go.
	err io.Writer
}

// announce tells chartd's processes that their caches must drop what e
// names; without -redis-url, or failing, their TTL bounds the delay.
func (c cli) announce(ctx context.Context, e revoke.Event) {
	if c.revoke == nil {
		return
	}
	if err := c.revoke.Publish(ctx, e); err != nil {
		fmt.Fprintf(c.err, "chartd's caches drop it within their TTL: %v\n", err)
	}
}

func (c cli) print(v any) error {
	enc := json.NewEncoder(c.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (c cli) accountCreate(ctx context.Context, planID, keyName, email string) error {
	if !plan.Valid(planID) {
		return fmt.Errorf("-plan %q: use free or pro", planID)
	}
	var acct store.Account
	out := map[string]string{}
	if email != "" {
		e, err := people.NormalizeEmail(email)
		if err != nil {
			return fmt.Errorf("-email %q: %w", email, err)
		}
		// One transaction: a used email leaves no account behind.
		a, u, err := c.st.SignUp(ctx, planID, e, "")
		if err != nil {
			return fmt.Errorf("create account for %s: %w", e, err)
		}
		acct = a
		out["email"], out["user_id"] = u.Email, u.ID
	} else {
		a, err := c.st.CreateAccount(ctx, planID)
		if err != nil {
			return fmt.Errorf("create account: %w", err)
		}
		acct = a
	}
	key, prefix, hash := auth.NewKey()
	if _, err := c.st.CreateAPIKey(ctx, acct.ID, keyName, prefix, hash); err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	out["account_id"], out["api_key"] = acct.ID, key
	return c.print(out)
}

// findUser finds the site user of email.
func (c cli) findUser(ctx context.Context, email string) (store.User, error) {
	e, err := people.NormalizeEmail(email)
	if err != nil {
		return store.User{}, fmt.Errorf("-email %q: %w", email, err)
	}
	u, err := c.st.FindUserByEmail(ctx, e)
	if err != nil {
		return store.User{}, fmt.Errorf("user %s: %w", e, err)
	}
	return u, nil
}

// passwordSet reads the password from a file (or stdin), never from the
// command line, where other users of the machine could see it.
func (c cli) passwordSet(ctx context.Context, email, file string) error {
	u, err := c.findUser(ctx, email)
	if err != nil {
		return err
	}
	var raw []byte
	if file == "-" {
		raw, err = io.ReadAll(io.LimitReader(c.in, 4096))
	} else {
		raw, err = os.ReadFile(file)
	}
	if err != nil {
		return fmt.Errorf("read password: %w", err)
	}
	pw, _, _ := strings.Cut(string(raw), "\n")
	pw = strings.TrimSuffix(pw, "\r")
	if err := people.New(people.Config{}, c.st, quota.NewMemory(nil), nil).SetPassword(ctx, u, pw); err != nil {
		return fmt.Errorf("set password of %s: %w", u.Email, err)
	}
	return c.print(map[string]any{"email": u.Email, "password_set": true})
}

// signinLink prints a one-time sign-in link for the site.
func (c cli) signinLink(ctx context.Context, email, publicURL string) error {
	u, err := c.findUser(ctx, email)
	if err != nil {
		return err
	}
	tok, exp, err := people.New(people.Config{}, c.st, quota.NewMemory(nil), nil).SignInLink(ctx, u)
	if err != nil {
		return err
	}
	link := strings.TrimRight(publicURL, "/") + "/signin/link?token=" + url.QueryEscape(tok)
	return c.print(map[string]any{"email": u.Email, "url": link, "expires_at": exp})
}

func (c cli) accountList(ctx context.Context) error {
	accts, err := c.st.ListAccounts(ctx)
	if err != nil {
		return err
	}
	type row struct {
		ID        string    `json:"account_id"`
		Plan      string    `json:"plan"`
		CreatedAt time.Time `json:"created_at"`
	}
	rows := []row{}
	for _, a := range accts {
		rows = append(rows, row{a.ID, a.Plan, a.CreatedAt})
	}
	return c.print(rows)
}

func (c cli) keyCreate(ctx context.Context, account, name string) error {
	if _, err := c.st.GetAccount(ctx, account); err != nil {
		return fmt.Errorf("account %s: %w", account, err)
	}
	key, prefix, hash := auth.NewKey()
	k, err := c.st.CreateAPIKey(ctx, account, name, prefix, hash)
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	return c.print(map[string]string{"account_id": account, "key_id": k.ID, "name": k.Name, "api_key": key})
}

type keyRow struct {
	ID        string     `json:"key_id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

func (c cli) keyList(ctx context.Context, account string) error {
	keys, err := c.st.ListAPIKeys(ctx, account)
	if err != nil {
		return err
	}
	rows := []keyRow{}
	for _, k := range keys {
		rows = append(rows, keyRow{k.ID, k.Name, k.Prefix, k.CreatedAt, k.RevokedAt})
	}
	return c.print(rows)
}

func (c cli) keyRevoke(ctx context.Context, account, keyID string) error {
	if err := c.st.RevokeAPIKey(ctx, account, keyID); err != nil {
		return fmt.Errorf("revoke key %s: %w", keyID, err)
	}
	c.announce(ctx, revoke.Event{Kind: revoke.APIKeys, ID: account})
	return c.print(map[string]any{"revoked": true, "key_id": keyID})
}

func (c cli) signingRotate(ctx context.Context, account string) error {
	if _, err := c.st.GetAccount(ctx, account); err != nil {
		return fmt.Errorf("account %s: %w", account, err)
	}
	k, revoked, err := signing.Rotate(ctx, c.st, c.box, account)
	if err != nil {
		return fmt.Errorf("rotate signing keys: %w", err)
	}
	for _, kid := range revoked {
		c.announce(ctx, revoke.Event{Kind: revoke.SigningKey, ID: kid})
	}
	return c.print(map[string]any{"kid": k.ID, "revoked": append([]string{}, revoked...)})
}

func (c cli) signingRevoke(ctx context.Context, account, kid string) error {
	if err := c.st.RevokeSigningKey(ctx, account, kid); err != nil {
		return fmt.Errorf("revoke signing key %s: %w", kid, err)
	}
	c.announce(ctx, revoke.Event{Kind: revoke.SigningKey, ID: kid})
	return c.print(map[string]any{"revoked": true, "kid": kid})
}

// secretsMigrate seals, in place, the signing-key secrets earlier versions
// stored raw; links keep working. It refuses to write when a sealed secret
// does not open with the key (the wrong key file).
func (c cli) secretsMigrate(ctx context.Context) error {
	r, err := signing.Migrate(ctx, c.st, c.box)
	if perr := c.print(r); err == nil {
		err = perr
	}
	return err
}

// secretsRotate re-seals every signing-key secret under the newest server
// key of the key file (its first line), in one transaction; raw ones are
// sealed too. A secret no key of the file opens stops it with nothing
// written. Afterwards the older keys can leave the file.
func (c cli) secretsRotate(ctx context.Context) error {
	r, err := signing.RotateServerKey(ctx, c.st, c.box)
	if err != nil {
		return fmt.Errorf("secrets rotate: %w", err)
	}
	return c.print(r)
}

func (c cli) planSet(ctx context.Context, account, planID string) error {
	if !plan.Valid(planID) {
		return fmt.Errorf("-plan %q: use free or pro", planID)
	}
	if err := c.st.SetPlan(ctx, account, planID); err != nil {
		return fmt.Errorf("set plan of %s: %w", account, err)
	}
	// The gateway's key cache holds each key's plan.
	c.announce(ctx, revoke.Event{Kind: revoke.APIKeys, ID: account})
	return c.print(map[string]string{"account_id": account, "plan": planID})
}
