/// Word lists that the generator draws from, so names look like real data (and compress like
/// it: repetitive but not trivially so).
enum Vocabulary {
    static let verbs = [
        "Buy", "Call", "Email", "Fix", "Clean", "Book", "Pay", "Write", "Read", "Review",
        "Schedule", "Cancel", "Return", "Order", "Pick up", "Drop off", "Plan", "Prepare",
        "Update", "Check",
    ]

    static let objects = [
        "milk", "the plumber", "the dentist", "mom", "the landlord", "the car", "the sink",
        "the gutters", "flight tickets", "the electricity bill", "rent", "a thank-you note",
        "the quarterly report", "chapter 3", "the pull request", "the budget", "groceries",
        "the dry cleaning", "the package", "the library books", "a birthday present",
        "the garden", "the garage", "taxes", "the insurance claim", "the team offsite",
        "the slides", "the contract", "the invoice", "passport renewal", "the vet",
        "the bike", "the backup drive", "the newsletter", "the kitchen", "lunch with Sam",
        "the hotel", "the recipe", "the meeting notes", "the server logs",
    ]

    static let qualifiers = [
        "", "", "", "", "", "", "", "", "today", "tomorrow", "this week", "before Friday",
        "after work", "on Monday", "again", "asap", "for the weekend", "about the sink",
        "with Alex", "if it rains",
    ]

    static let firstNames = [
        "Ada", "Alan", "Barbara", "Brian", "Claude", "Dennis", "Donald", "Edsger", "Frances",
        "Grace", "Guido", "Hedy", "Ivan", "James", "John", "Ken", "Leslie", "Linus", "Margaret",
        "Niklaus", "Radia", "Richard", "Robin", "Shafi", "Sophie", "Tim", "Tony", "Vint",
        "Whitfield", "Yukihiro", "Anders", "Bjarne", "Chris", "Dorothy", "Elena", "Fernando",
        "Gerald", "Hal", "Ingrid", "Jean",
    ]

    static let lastNames = [
        "Lovelace", "Turing", "Liskov", "Kernighan", "Shannon", "Ritchie", "Knuth", "Dijkstra",
        "Allen", "Hopper", "van Rossum", "Lamarr", "Sutherland", "Gosling", "McCarthy",
        "Thompson", "Lamport", "Torvalds", "Hamilton", "Wirth", "Perlman", "Stallman",
        "Milner", "Goldwasser", "Wilson", "Berners-Lee", "Hoare", "Cerf", "Diffie",
        "Matsumoto", "Hejlsberg", "Stroustrup", "Lattner", "Vaughan", "Corbató", "Sussman",
        "Abelson", "Kahan", "Steele", "Sammet",
    ]
}
