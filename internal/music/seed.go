package music

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/module"
	"github.com/tutti-dev/tutti/internal/tags"
)

// SeedSize is the size of the load-test data set.
type SeedSize struct {
	Users       int
	Songs       int // link posts
	Audios      int // audio posts, each with its own small WAV file
	Comments    int
	Likes       int
	Friendships int // pairs besides the hub's, one end picked by a power law
}

// SeedDefault is the seed's data set (spec/music.md): a thousand users,
// fifty thousand songs, fifty thousand audios, a hundred thousand comments.
var SeedDefault = SeedSize{Users: 1000, Songs: 50000, Audios: 50000, Comments: 100000, Likes: 100000, Friendships: 20000}

// SeedPassword is every seeded user's password unless told otherwise.
const SeedPassword = "music-load-test"

// SeedIDs is what the load test needs to find the seeded data.
type SeedIDs struct {
	Password string   `json:"password"`
	Users    []string `json:"users"`  // usernames; the first is the hub, everyone's friend
	Hub      string   `json:"hub"`    // the most-friended user
	Songs    []int64  `json:"songs"`  // link posts' ids, oldest first
	Audios   []int64  `json:"audios"` // public audio posts' ids, oldest first (music-listen plays them)
	Tags     []string `json:"tags"`   // the hashtags used
	// LastPost is the newest seeded post's id: the load test tells the
	// songs it posts (and deletes) from the seeded ones by it.
	LastPost int64 `json:"last_post"`
}

// seedFlags is `tutti seed music`.
func seedFlags(fs *flag.FlagSet) (func() error, module.SeedFunc) {
	size := SeedDefault
	fs.IntVar(&size.Users, "users", size.Users, "users to create, all with the same password; the first is everyone's friend")
	fs.IntVar(&size.Songs, "songs", size.Songs, "songs and playlists shared by link (YouTube, SoundCloud, Spotify, Apple Music, Bandcamp), with #hashtags")
	fs.IntVar(&size.Audios, "audios", size.Audios, "audio posts, each a short WAV file written to the upload storage, with its waveform")
	fs.IntVar(&size.Comments, "comments", size.Comments, "comments, mostly on recent posts; some pinned to a moment of an audio")
	fs.IntVar(&size.Likes, "likes", size.Likes, "likes, mostly on recent posts")
	fs.IntVar(&size.Friendships, "friendships", size.Friendships, "friendships besides the first user's, one end picked by a power law")
	password := fs.String("password", SeedPassword, "every seeded user's password")
	check := func() error { return size.check() }
	return check, func(ctx context.Context, d *db.DB, run module.SeedRun) (string, error) {
		start := time.Now()
		ids, err := Seed(ctx, d, run.Files, size, *password, run.Out, run.Progress, run.RNGSeed)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("seeded music in %.1f s: %d users (password %q; %s is everyone's friend), %d songs, %d audios, up to %d comments, %d likes and %d friendships; ids in %s",
			time.Since(start).Seconds(), len(ids.Users), *password, ids.Hub, size.Songs, size.Audios, size.Comments, size.Likes, size.Friendships, run.Out), nil
	}
}

func (s SeedSize) check() error {
	if s.Users < 2 || s.Songs < 0 || s.Audios < 0 || s.Songs+s.Audios < 1 || s.Comments < 0 || s.Likes < 0 || s.Friendships < 0 {
		return errors.New("music: seed: need at least two users and one post, and no negative sizes")
	}
	return nil
}

// seedPost is a post being made up.
type seedPost struct {
	id, author, created    int64
	audio                  bool
	public                 bool
	url, comment           string
	likes, comments, plays int64
	durMS                  int64
}

// Seed bulk-inserts a data set of the given size (users, friendships,
// songs by link with hashtags, audio posts with their files and waveforms,
// comments, likes, the trending counts) and writes what the load test
// needs to idsPath. Every user has the same password, hashed once. The
// audio files go to st as media originals (st may be nil without audios).
// Progress goes to progress (nil: silent). It refuses a database where
// music has posts already (seed a fresh one), and should run while no
// tutti serves the database: a running instance keeps its cache version
// in memory.
func Seed(ctx context.Context, d *db.DB, st files.Storage, size SeedSize, password, idsPath string, progress io.Writer, seed uint64) (*SeedIDs, error) {
	if err := size.check(); err != nil {
		return nil, err
	}
	if size.Audios > 0 && st == nil {
		return nil, errors.New("music: seed: audios need the upload storage")
	}
	var have int64
	if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM music_posts`), &have); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	if have > 0 {
		return nil, fmt.Errorf("music: seed: music has %d posts already; seed a fresh database (a new --data-dir)", have)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))
	posts := size.Songs + size.Audios
	bar := load.NewSeedProgress(progress, "music", size.Users+posts+size.Audios+size.Comments+size.Likes+2*(size.Users-1+size.Friendships))
	step := bar.Step
	now := time.Now()
	ids := &SeedIDs{Password: password, Tags: seedTags}
	userIDs, names, err := auth.SeedUsers(ctx, d, size.Users, password, now, step)
	if err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	ids.Users, ids.Hub = names, names[0]

	// Friendships: the first user with everyone, then pairs whose one end
	// is uniform and the other follows a power law over the users (Zipf):
	// a few have hundreds of friends, most a handful.
	type pair struct{ a, b int64 }
	friends := make(map[int64][]int64, len(userIDs))
	seen := make(map[pair]bool, size.Users+size.Friendships)
	befriend := func(a, b int64) {
		if a == b || seen[pair{a, b}] {
			return
		}
		seen[pair{a, b}], seen[pair{b, a}] = true, true
		friends[a], friends[b] = append(friends[a], b), append(friends[b], a)
	}
	for _, u := range userIDs[1:] {
		befriend(userIDs[0], u)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(userIDs)-1))
	for tries := 0; len(seen)/2 < len(userIDs)-1+size.Friendships && tries < 4*size.Friendships; tries++ {
		befriend(userIDs[rng.IntN(len(userIDs))], userIDs[zipf.Uint64()])
	}
	var rows [][]any
	for a, fs := range friends {
		for _, b := range fs {
			rows = append(rows, []any{a, b, now.UnixMilli() - rng.Int64N(int64(90*24*time.Hour/time.Millisecond))})
		}
	}
	if err := d.CopyChunks(ctx, "music_friends", []string{"user_id", "friend_id", "created_at"}, rows, step); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	step(2*(size.Users-1+size.Friendships) - len(rows))

	// Posts, oldest first over the last 30 days, songs and audios mixed;
	// a fifth for friends only.
	var postBase int64
	if err := db.Scan(d.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM music_posts`), &postBase); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	span := (30 * 24 * time.Hour).Milliseconds()
	first := now.UnixMilli() - span
	ps := make([]seedPost, posts)
	kinds := make([]bool, posts) // true: audio
	for i := range size.Audios {
		kinds[i] = true
	}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	tagZipf := rand.NewZipf(rng, 1.3, 1, uint64(len(seedTags)-1))
	for i := range ps {
		p := &ps[i]
		p.id = postBase + int64(i) + 1
		p.author = userIDs[rng.IntN(len(userIDs))]
		p.created = first + span*int64(i)/int64(posts)
		p.audio = kinds[i]
		p.public = rng.IntN(5) != 0
		p.comment = seedText(rng, tagZipf, p.audio)
		if p.audio {
			p.plays = int64(rng.IntN(50) * rng.IntN(20))
		} else {
			e, err := ParseLink(seedLink(rng))
			if err != nil {
				return nil, fmt.Errorf("music: seed: a made-up link: %w", err)
			}
			p.url = e.URL
		}
	}
	// who picks, for post p, a user who may see it: anyone for a public
	// post, else the author or one of their friends.
	who := func(p *seedPost) int64 {
		if p.public {
			return userIDs[rng.IntN(len(userIDs))]
		}
		fs := friends[p.author]
		if len(fs) == 0 || rng.IntN(10) == 0 {
			return p.author
		}
		return fs[rng.IntN(len(fs))]
	}
	recent := func() int { return posts - 1 - int(float64(posts)*rng.Float64()*rng.Float64()) }

	// Audio files first: a post's row carries its waveform and length.
	var media *seedMedia
	if size.Audios > 0 {
		if media, err = seedAudios(ctx, d, st, rng.Uint64(), ps, now, step); err != nil {
			return nil, err
		}
	}
	// Comments and likes, mostly on recent posts, by people who may see them.
	type comment struct {
		post, author, created int64
		body                  string
		at                    any
	}
	cs := make([]comment, 0, size.Comments)
	for range size.Comments {
		i := recent()
		p := &ps[i]
		c := comment{post: p.id, author: who(p), body: seedComment(rng, tagZipf)}
		c.created = p.created + rng.Int64N(max(now.UnixMilli()-p.created, 1))
		if p.audio && p.durMS > 0 && rng.IntN(3) == 0 {
			c.at = rng.Int64N(p.durMS)
		}
		p.comments++
		cs = append(cs, c)
	}
	likes := make(map[pair]int64, size.Likes)
	for tries := 0; len(likes) < size.Likes && tries < 4*size.Likes; tries++ {
		i := recent()
		p := &ps[i]
		k := pair{p.id, who(p)}
		if _, ok := likes[k]; !ok {
			likes[k] = p.created + rng.Int64N(max(now.UnixMilli()-p.created, 1))
			p.likes++
		}
	}

	// The rows: posts, their tags and trending, comments, likes.
	cols := []string{"id", "author_id", "kind", "url", "comment", "visibility", "media_id", "likes", "comments", "created_at", "changed_at"}
	if media != nil {
		cols = append(cols, "duration_ms", "peaks", "plays", "ready")
	}
	rows = rows[:0]
	var tagRows [][]any
	trend := NewStore(d, func() time.Time { return now }).Trending().Tally()
	for i := range ps {
		p := &ps[i]
		kind, vis, mediaID := "link", Friends, any(nil)
		if p.public {
			vis = Public
		}
		if p.audio {
			kind, mediaID = "audio", media.ids[i]
		}
		r := []any{p.id, p.author, kind, p.url, p.comment, vis, mediaID, p.likes, p.comments, p.created, p.created}
		if media != nil {
			var peaks any
			if p.audio {
				peaks = media.peaks[i]
			}
			r = append(r, p.durMS, peaks, p.plays, 1)
		}
		rows = append(rows, r)
		keys := tags.Tags(p.comment)
		for _, t := range keys {
			tagRows = append(tagRows, []any{t, p.id})
		}
		if p.public {
			trend.Use(keys, time.UnixMilli(p.created))
			if p.audio {
				ids.Audios = append(ids.Audios, p.id)
			}
		}
		if !p.audio {
			ids.Songs = append(ids.Songs, p.id)
		}
	}
	ids.LastPost = ps[len(ps)-1].id
	if err := d.CopyChunks(ctx, "music_posts", cols, rows, step); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	if err := d.CopyChunks(ctx, "music_tags", []string{"tag", "post_id"}, tagRows, func(int) {}); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	if err := trend.Save(ctx, d); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	var commentBase int64
	if err := db.Scan(d.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM music_comments`), &commentBase); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	rows = rows[:0]
	ccols := []string{"id", "post_id", "author_id", "body", "created_at"}
	if media != nil {
		ccols = append(ccols, "at_ms")
	}
	for i, c := range cs {
		r := []any{commentBase + int64(i) + 1, c.post, c.author, c.body, c.created}
		if media != nil {
			r = append(r, c.at)
		}
		rows = append(rows, r)
	}
	if err := d.CopyChunks(ctx, "music_comments", ccols, rows, step); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	rows = rows[:0]
	for k, at := range likes {
		rows = append(rows, []any{k.a, k.b, at})
	}
	if err := d.CopyChunks(ctx, "music_likes", []string{"post_id", "user_id", "created_at"}, rows, step); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	step(size.Likes - len(likes))

	if err := d.ResetSequences(ctx, "users", "music_posts", "music_comments", "media_files"); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	// The pages changed: a new version, so that no cache keyed by the old
	// one is served (the app reads it when it starts).
	if _, err := d.SQL().ExecContext(ctx, `UPDATE music_meta SET version = version + 1 WHERE id = 1`); err != nil {
		return nil, fmt.Errorf("music: seed: version: %w", err)
	}
	if err := bar.Done(idsPath, ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// LoadSeedIDs reads the ids written by Seed.
func LoadSeedIDs(path string) (*SeedIDs, error) {
	var ids SeedIDs
	if err := load.ReadSeedFile(path, "music", &ids); err != nil {
		return nil, err
	}
	if len(ids.Users) < 2 || ids.Password == "" {
		return nil, fmt.Errorf("music: seed ids %s: empty", path)
	}
	return &ids, nil
}

// seedLink makes up the link of a song or a playlist on one of the sites
// music shows as a player (embed.go), or now and then a band's own site.
func seedLink(rng *rand.Rand) string {
	id := func(n int, alphabet string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	const digits = "0123456789"
	slug := func() string {
		n := 1 + rng.IntN(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = seedWords[rng.IntN(len(seedWords))]
		}
		return strings.Join(parts, "-")
	}
	artist := seedArtists[rng.IntN(len(seedArtists))]
	switch rng.IntN(20) {
	case 0, 1, 2, 3, 4:
		return "https://www.youtube.com/watch?v=" + id(11, alnum+"-_")
	case 5:
		return "https://youtu.be/" + id(11, alnum+"-_")
	case 6:
		return "https://www.youtube.com/playlist?list=PL" + id(32, alnum+"-_")
	case 7, 8, 9:
		return "https://soundcloud.com/" + artist + "/" + slug()
	case 10:
		return "https://soundcloud.com/" + artist + "/sets/" + slug()
	case 11, 12:
		return "https://open.spotify.com/track/" + id(22, alnum)
	case 13:
		return "https://open.spotify.com/" + []string{"album", "playlist"}[rng.IntN(2)] + "/" + id(22, alnum)
	case 14:
		return "https://music.apple.com/us/album/" + slug() + "/" + id(9+rng.IntN(2), digits) + "?i=" + id(10, digits)
	case 15:
		return "https://music.apple.com/gb/playlist/" + slug() + "/pl." + strings.ToLower(id(32, "0123456789abcdef"))
	case 16:
		return "https://" + artist + ".bandcamp.com/" + []string{"track", "album"}[rng.IntN(2)] + "/" + slug()
	case 17:
		return "https://bandcamp.com/EmbeddedPlayer/album=" + id(10, digits) + "/size=large/bgcol=ffffff/linkcol=0687f5/tracklist=false/"
	case 18:
		return "https://music.youtube.com/watch?v=" + id(11, alnum+"-_")
	default:
		return "https://www.example.com/" + artist + "/" + slug()
	}
}

// seedText is a post's comment: a few words and one to three hashtags,
// the popular ones far more often (a power law, as on a real site).
func seedText(rng *rand.Rand, tagZipf *rand.Zipf, audio bool) string {
	var b strings.Builder
	opener := seedOpeners
	if audio {
		opener = seedAudioOpeners
	}
	b.WriteString(opener[rng.IntN(len(opener))])
	for n := 2 + rng.IntN(8); n > 0; n-- {
		b.WriteByte(' ')
		b.WriteString(seedWords[rng.IntN(len(seedWords))])
	}
	for n := 1 + rng.IntN(3); n > 0; n-- {
		b.WriteString(" #" + seedTags[tagZipf.Uint64()])
	}
	return b.String()
}

// seedComment is a comment; one in five has a hashtag.
func seedComment(rng *rand.Rand, tagZipf *rand.Zipf) string {
	s := seedReplies[rng.IntN(len(seedReplies))]
	if rng.IntN(5) == 0 {
		s += " #" + seedTags[tagZipf.Uint64()]
	}
	return s
}

var seedWords = strings.Fields(`love this track song album tune groove beat bass drums guitar piano voice
	chorus verse live session remix cover night morning summer rain road city dance slow loud quiet sunday
	vinyl tape radio record band friends weekend repeat headphones kitchen train coffee late early old new`)

var seedTags = strings.Fields(`nowplaying newmusic jazz indie techno house ambient lofi hiphop rock punk
	metal folk classical piano guitar vinyl live cover remix chill workout roadtrip rainyday summer throwback
	80s 90s onrepeat soundtrack kpop afrobeat reggae blues soul funk disco synthwave drumandbass voicememo`)

var seedArtists = strings.Fields(`the-night-owls mara-lund kofi-beats lowtide saltwater-radio juno-park
	brass-attic ines-moreau northern-lights-trio velvet-static daniel-okafor paper-kites-fan cloudhopper
	sunday-market-band mika-sato rustbelt-choir tapedeck anna-kowalska lagos-groove fjordsound`)

var seedOpeners = []string{"On repeat:", "This one!", "Found this today", "Can't stop listening", "For the weekend",
	"Throwback", "New favourite", "My morning song", "Play it loud", "Thanks for the tip,"}

var seedAudioOpeners = []string{"Voice memo:", "Recorded at rehearsal", "Live from the kitchen", "A quick idea",
	"Tried a new riff", "Sound check", "Field recording:", "Humming this all day"}

var seedReplies = []string{"Love it!", "So good.", "This is on my playlist now.", "Great find, thanks!",
	"The bass line!", "Saw them live last year.", "Takes me back.", "Not my thing, but nice.", "More like this please",
	"Who is this?", "Perfect for a rainy day.", "That chorus though", "Added to my weekend list", "Goosebumps."}
